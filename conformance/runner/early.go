package runner

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Stop says why a run stopped before checking anything: the
// implementation could not answer, the same way, hello and the first cases
// (Options.StopAfter). Such a run checked no requirement, so its report is
// the cause, once, and how to reproduce it, not a verdict per case.
type Stop struct {
	// Cause is the error every one of the first cases ended with (see
	// Cause), as the first of them reported it.
	Cause string
	// Cases are the cases that errored with it, in the order they ran.
	Cases []string
	// Hello is how hello failed, when it did ("" when it was answered).
	Hello string
	// Stderr is the tail of the implementation's stderr in the first case.
	Stderr string
	// Reproduce are shell commands that send hello, then the first case's
	// requests, to the implementation by hand (none for a target that is
	// not a command).
	Reproduce []string
}

// digits are the parts of an error message that differ between otherwise
// identical errors (seq numbers, pids, durations).
var digits = regexp.MustCompile(`[0-9]+`)

// Cause is what an errored result's message says once the details that
// vary from case to case are left out (numbers, the case's own name, every
// clause after the first: the stderr tail, a list of schema errors):
// errored results with the same Cause failed for one reason.
// It is "" for a result that did not error.
func Cause(r *Result) string {
	if r.Status != Errored {
		return ""
	}
	// The first clause: later ones (the stderr tail, a schema validator's
	// list of errors in no fixed order) vary between identical failures.
	msg, _, _ := strings.Cut(r.Message, "; ")
	if r.Case != nil {
		msg = strings.ReplaceAll(msg, r.Case.FullName(), "CASE")
	}
	return digits.ReplaceAllString(msg, "N")
}

// stopper watches the first results of a run, in the order they finish,
// and stops the run when they all errored with one Cause.
type stopper struct {
	after  int // how many first results decide; 0: never stop
	hello  string
	cancel context.CancelFunc

	mu      sync.Mutex
	seen    []*Result
	decided bool
	stop    *Stop
}

// newStopper: a run whose hello failed with a protocol error stops after
// the first case errors like it (one case is then enough); otherwise after
// the first after cases error with one cause.
func (r *Runner) newStopper(cancel context.CancelFunc) *stopper {
	s := &stopper{after: r.opts.StopAfter, hello: r.helloErr, cancel: cancel}
	if s.after > 0 && s.hello != "" {
		s.after = 1
	}
	return s
}

// record notes a finished result; it reports whether the run has stopped
// (then the result does not count: it was cut short or never checked).
func (s *stopper) record(r *Result) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		return true
	}
	if s.decided || s.after == 0 || r.Unselected || r.Status == Skipped {
		return false
	}
	s.seen = append(s.seen, r)
	cause := Cause(s.seen[0])
	if cause == "" || Cause(r) != cause {
		s.decided = true
		return false
	}
	if len(s.seen) < s.after {
		return false
	}
	s.decided = true
	first := s.seen[0]
	s.stop = &Stop{Cause: first.Message, Hello: s.hello, Stderr: first.Stderr}
	if i := strings.Index(s.stop.Cause, "; stderr tail:"); i >= 0 {
		s.stop.Cause = s.stop.Cause[:i]
		if s.stop.Stderr == "" {
			s.stop.Stderr = strings.TrimSpace(first.Message[i+len("; stderr tail:"):])
		}
	}
	for _, r := range s.seen {
		s.stop.Cases = append(s.stop.Cases, r.Case.FullName())
	}
	s.cancel()
	return false
}

// stopped returns the stop, once decided.
func (s *stopper) stopped() *Stop {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop
}

// reproduce are the shell commands that send hello, then caseName's
// requests (hello first), to the binary as the runner runs it.
func (b *binary) reproduce(caseName string) []string {
	cmd := shellJoin(b.opts.Command)
	if b.runAs != "" {
		cmd = "runuser -u " + shellQuote(b.runAs) + " -- " + cmd
	}
	return []string{
		fmt.Sprintf(`printf '%%s\n' '{"fcp":1,"seq":0,"op":"hello"}' | %s`, cmd),
		fmt.Sprintf("forge-conform show %s --requests /tmp/fc-repro | %s", shellQuote(caseName), cmd),
	}
}

func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
