package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// PathOpener is a Target that can open a conversation on processes of its
// own whose PATH starts with dir (the cases that require
// corpus.RequiresOldBackends, PROTOCOL.md §1 "Sessions"): the binary
// target starts them with that environment, the in-process reference
// builds a reference whose tools see it.
type PathOpener interface {
	OpenWithPath(ctx context.Context, dir string) (Conversation, error)
}

// oldBackends are the fake binaries of corpus.RequiresOldBackends: rg and
// ugrep whose version banner names release 0.0.0, older than any release
// of either (CFG-SF-03, I-SF-24). Asked anything else they find nothing
// (exit status 1, no output, stdin drained), so an implementation that
// skipped the version check would search and succeed.
var oldBackends = map[string]string{"rg": "ripgrep 0.0.0", "ugrep": "ugrep 0.0.0"}

func fakeScript(banner string) string {
	return "#!/bin/sh\n" +
		"# forge-conform: a fake binary too old for search_files (CFG-SF-03)\n" +
		"for a in \"$@\"; do case \"$a\" in --version|-V) echo '" + banner + "'; exit 0;; esac; done\n" +
		"while IFS= read -r _; do :; done\n" +
		"exit 1\n"
}

// fakeBinaries writes the old backends into a new directory under the
// run's base, checks that they execute there, and returns the directory
// and its cleanup. A directory where files cannot execute (a noexec
// mount) is an error the case is skipped for, since the fakes would fail
// for a reason of their own.
func (r *Runner) fakeBinaries(ctx context.Context) (string, func(), error) {
	n := atomic.AddInt64(&r.fresh, 1)
	dir := filepath.Join(r.base, fmt.Sprintf("fakebin.%d", n))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = fixture.RemoveAll(dir) }
	for name, banner := range oldBackends {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(fakeScript(banner)), 0o755); err != nil {
			cleanup()
			return "", nil, err
		}
		if err := os.Chmod(p, 0o755); err != nil { // past the umask
			cleanup()
			return "", nil, err
		}
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(pctx, filepath.Join(dir, "rg"), "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != oldBackends["rg"] {
		cleanup()
		return "", nil, fmt.Errorf("a shell script in %s does not execute (%v): is it a noexec mount? set TMPDIR or --tempdir elsewhere", r.base, err)
	}
	return dir, cleanup, nil
}

// WithPath returns env (nil: the runner's environment) with dir first on
// PATH.
func WithPath(env []string, dir string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
			continue
		}
		out = append(out, kv)
	}
	if path != "" {
		dir += string(os.PathListSeparator) + path
	}
	return append(out, "PATH="+dir)
}

// OpenWithPath starts the implementation with dir first on PATH: a
// process of its own for the case in session mode, greeted with hello and
// ended with the case; a process per request in one-shot mode.
func (b *binary) OpenWithPath(ctx context.Context, dir string) (Conversation, error) {
	o := b.opts
	o.Env = WithPath(o.Env, dir)
	if b.oneshot {
		return oneShotConversation{b: &binary{opts: o, oneshot: true}}, nil
	}
	own := &binary{opts: o, all: map[*fcpclient.Session]bool{}, greeted: map[*fcpclient.Session]bool{}}
	s, err := fcpclient.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	own.all[s] = true
	if _, _, err := s.Do(ctx, fcp.Request{Op: fcp.OpHello}); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("hello to the process started with %s first on PATH: %w", dir, err)
	}
	return &ownConversation{sessionConversation{b: own, s: s}}, nil
}

// ownConversation is a session conversation whose process serves one case
// and ends with it.
type ownConversation struct{ sessionConversation }

func (c *ownConversation) Release(error) { c.b.Close() }

// openOldBackends opens the conversation of a case that requires
// corpus.RequiresOldBackends; on failure it sets res (skipped where the
// fakes cannot execute, errored where the implementation does not start)
// and returns nil. The fakes are removed when the conversation ends.
func (r *Runner) openOldBackends(ctx context.Context, res *Result) (Conversation, error) {
	dir, cleanup, err := r.fakeBinaries(ctx)
	if err != nil {
		res.Status, res.Message = Skipped, "needs fake rg and ugrep binaries: "+err.Error()
		return nil, err
	}
	conv, err := r.target.(PathOpener).OpenWithPath(ctx, dir)
	if err != nil {
		cleanup()
		res.Status, res.Message = Errored, "starting the implementation with fake rg and ugrep first on PATH: "+err.Error()
		return nil, err
	}
	return releaseThen{conv, cleanup}, nil
}

// releaseThen runs after once the conversation is released.
type releaseThen struct {
	Conversation
	after func()
}

func (c releaseThen) Release(err error) {
	c.Conversation.Release(err)
	c.after()
}
