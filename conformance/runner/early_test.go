package runner

import (
	"testing"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

func errored(name, msg string) *Result {
	return &Result{Case: &corpus.Case{Spec: "ld", Name: name}, Status: Errored, Message: msg}
}

func TestCause(t *testing.T) {
	tests := []struct {
		a, b *Result
		same bool
	}{
		{errored("x", "fcp protocol error (crash): exited before answering seq 3"),
			errored("y", "fcp protocol error (crash): exited before answering seq 12"), true},
		{errored("x", "fcp protocol error (crash): exited; stderr tail: boom in x"),
			errored("y", "fcp protocol error (crash): exited; stderr tail: boom in y"), true},
		{errored("x", "reset before the case ld/x: timed out"), errored("y", "reset before the case ld/y: timed out"), true},
		{errored("x", "fcp protocol error (crash): exited"), errored("y", "fcp protocol error (timeout): timed out"), false},
		{&Result{Case: &corpus.Case{Name: "x"}, Status: Failed, Message: "m"}, &Result{Case: &corpus.Case{Name: "y"}, Status: Failed, Message: "m"}, false},
	}
	for _, tt := range tests {
		if got := Cause(tt.a) == Cause(tt.b) && Cause(tt.a) != ""; got != tt.same {
			t.Errorf("Cause(%q) = %q, Cause(%q) = %q: same %v, want %v", tt.a.Message, Cause(tt.a), tt.b.Message, Cause(tt.b), got, tt.same)
		}
	}
}

func TestStopper(t *testing.T) {
	crash := func(name string) *Result {
		return errored(name, "fcp protocol error (crash): exited before answering seq 1")
	}
	passed := func(name string) *Result { return &Result{Case: &corpus.Case{Spec: "ld", Name: name}, Status: Passed} }
	skipped := func(name string) *Result { return &Result{Case: &corpus.Case{Spec: "ld", Name: name}, Status: Skipped} }
	tests := []struct {
		name    string
		after   int
		hello   string
		results []*Result
		stopAt  int // index of the result that stops the run; -1: never
	}{
		{"three alike", 3, "", []*Result{crash("a"), skipped("s"), crash("b"), crash("c"), crash("d")}, 3},
		{"one passes first", 3, "", []*Result{passed("a"), crash("b"), crash("c"), crash("d")}, -1},
		{"one passes later", 3, "", []*Result{crash("a"), crash("b"), passed("c"), crash("d")}, -1},
		{"different causes", 2, "", []*Result{crash("a"), errored("b", "timed out")}, -1},
		{"hello failed: one case", 5, "fcp protocol error (timeout)", []*Result{crash("a"), crash("b")}, 0},
		{"hello failed, case passes", 5, "fcp protocol error (timeout)", []*Result{passed("a"), crash("b")}, -1},
		{"never", 0, "x", []*Result{crash("a"), crash("b")}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cancelled := false
			r := &Runner{opts: Options{StopAfter: tt.after}, helloErr: tt.hello}
			s := r.newStopper(func() { cancelled = true })
			got := -1
			for i, res := range tt.results {
				after := s.stopped() != nil
				if cut := s.record(res); cut != after {
					t.Errorf("result %d: record = %v, want %v (true only after the stop)", i, cut, after)
				}
				if s.stopped() != nil && got < 0 {
					got = i
				}
			}
			if got != tt.stopAt || cancelled != (tt.stopAt >= 0) {
				t.Fatalf("stopped at %d (cancelled %v), want %d", got, cancelled, tt.stopAt)
			}
			if got >= 0 {
				st := s.stopped()
				if st.Cause != tt.results[0].Message && tt.hello == "" || st.Hello != tt.hello || len(st.Cases) == 0 {
					t.Errorf("stop %+v", st)
				}
				if !s.record(crash("late")) {
					t.Error("a result after the stop is not cut")
				}
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/true": "/usr/bin/true",
		"":              "''",
		"a b":           "'a b'",
		"it's":          `'it'\''s'`,
		"--mode=x":      "--mode=x",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
