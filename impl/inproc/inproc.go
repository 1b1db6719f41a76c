// Package inproc plugs the reference implementation into the conformance
// runner in-process: a runner.Target that calls the reference directly,
// with a conversation of its own per case, injects the faults a fixture
// declares (fsys.FaultFs), and, when the process runs as root, emulates an
// unprivileged user's permission checks (fsys.PermFs) so that permission
// cases mean the same as for a binary run as nobody.
//
// cmd/forge-conform plugs it in for its default run, and the Ginkgo suite
// for its in-process specs; a mutant of the reference is
// New(reference.Options{...}) with the deliberate defect switched on.
package inproc

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// The user whose permission checks a root process emulates, and who owns
// the fixtures then: nobody.
const emulatedUID, emulatedGID = 65534, 65534

// Target is the reference as a runner.Target.
type Target struct {
	ref  *reference.Reference
	fs   afero.Fs
	caps runner.Caps
	// opts built ref; OpenWithPath builds another with them.
	opts reference.Options
}

var (
	_ runner.Target     = (*Target)(nil)
	_ runner.PathOpener = (*Target)(nil)
)

// New builds the reference with opts over the real filesystem (opts.FS,
// when set, instead), behind permission emulation when the process runs as
// root.
func New(opts reference.Options) (*Target, error) {
	base := opts.FS
	if base == nil {
		base = fsys.OS()
	}
	// The reference under a reading of its own (opts.Readings) answers
	// differently from its goldens where the SRD leaves the bytes open.
	caps := runner.Caps{Faults: true, Stateful: true, Unprivileged: true, GoldenStrict: len(opts.Readings) == 0}
	if os.Geteuid() == 0 {
		base = fsys.NewPermFsAs(base, emulatedUID, emulatedGID)
		caps.Owner = &fixture.Owner{UID: emulatedUID, GID: emulatedGID}
		caps.Notes = []string{"running as root: permission cases use in-process permission emulation (afero PermFs) as an unprivileged user would see them"}
	}
	opts.FS = base
	if opts.Environ == nil {
		// The runner's canary secrets reach run_command as they reach a
		// binary's environment (runner.SecretEnv).
		opts.Environ = func() []string { return append(os.Environ(), runner.SecretEnv()...) }
	}
	ref, err := reference.New(opts)
	if err != nil {
		return nil, fmt.Errorf("inproc: %w", err)
	}
	return &Target{ref: ref, fs: base, caps: caps, opts: opts}, nil
}

// OpenWithPath starts a conversation with a reference of its own whose
// tools see dir first on PATH (a process of its own, for a binary).
func (t *Target) OpenWithPath(_ context.Context, dir string) (runner.Conversation, error) {
	opts := t.opts
	environ := opts.Environ
	opts.Environ = func() []string { return runner.WithPath(environ(), dir) }
	ref, err := reference.New(opts)
	if err != nil {
		return nil, fmt.Errorf("inproc: %w", err)
	}
	own := *t
	own.ref = ref
	return &conversation{t: &own, state: session.New()}, nil
}

// Hello answers as the reference does.
// It registers the fcp_* test tools, as the runner's hello to a binary
// asks (PROTOCOL.md §9.5).
func (t *Target) Hello(context.Context) (fcp.Response, error) {
	return t.ref.HelloFor(fcp.Request{Op: fcp.OpHello, TestTools: true}), nil
}

// Open starts a conversation with an empty state of its own.
func (t *Target) Open(context.Context) (runner.Conversation, error) {
	return &conversation{t: t, state: session.New()}, nil
}

// Caps: faults, conversation state, an unprivileged user (real or emulated).
func (t *Target) Caps() runner.Caps { return t.caps }

// Close does nothing: there is no process.
func (t *Target) Close() {}

// conversation is one case against the reference.
type conversation struct {
	t     *Target
	state *session.State
	// faulty is the filesystem with the case's faults, made at the first
	// request that has them and kept for the case: write and fsync faults
	// count the files written across its requests, as a FUSE mount of the
	// case's fixture does for an external implementation.
	faulty afero.Fs
}

// Do answers req, with faults injected into the filesystem for this
// request.
func (c *conversation) Do(ctx context.Context, req fcp.Request, faults []fixture.Fault) (runner.Reply, error) {
	fs := c.t.fs
	if len(faults) > 0 {
		if c.faulty == nil {
			ff, err := faultFs(fs, faults)
			if err != nil {
				return runner.Reply{}, err
			}
			c.faulty = ff
		}
		fs = c.faulty
	}
	resp := c.t.ref.HandleIn(ctx, req, fs, c.state)
	rep := runner.Reply{Response: resp}
	if resp.Content != nil {
		rep.ContentBytes = int64(len(*resp.Content))
	}
	return rep, nil
}

func (c *conversation) Release(error) {}

// FixtureOps counts the filesystem operations the case's fault layer has
// served so far (fsys.FaultFs.Ops); false before a request with faults
// made one.
func (c *conversation) FixtureOps() (int64, bool) {
	if ff, ok := c.faulty.(*fsys.FaultFs); ok {
		return ff.Ops(), true
	}
	return 0, false
}

// faultFs wraps fs with the fixture's faults, whose paths the runner made
// absolute.
func faultFs(fs afero.Fs, faults []fixture.Fault) (afero.Fs, error) {
	out := make([]fsys.Fault, 0, len(faults))
	for _, f := range faults {
		ff := fsys.Fault{Op: f.Op, Path: f.Path, Nth: f.Nth, Delay: f.Delay}
		if !f.Slow() { // a slow listing fails nothing: no Err
			errno, err := fsys.ParseErrno(f.Errno)
			if err != nil {
				return nil, fmt.Errorf("fixture fault at line %d: %w", f.Line, err)
			}
			ff.Err = errno
		}
		if err := ff.Validate(); err != nil {
			return nil, fmt.Errorf("fixture fault at line %d: %w", f.Line, err)
		}
		out = append(out, ff)
	}
	return fsys.NewFaultFs(fs, out), nil
}
