package runner

import (
	"context"
	"time"

	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Target is an implementation under test: the runner speaks to every
// implementation through it. The runner builds the FCP/1 binary target
// itself (Options.Binary); any other target, such as the reference
// in-process (package impl/inproc), is passed in Options.Target.
//
// A Target is used by several workers at once: Hello, Open and Caps must be
// safe for concurrent use; a Conversation is used by one worker at a time.
type Target interface {
	// Hello asks the implementation who it is, which tools and which ops
	// it declares.
	Hello(ctx context.Context) (fcp.Response, error)
	// Open starts one conversation: every exchange of one case goes
	// through it (to the same process, for a binary in session mode).
	Open(ctx context.Context) (Conversation, error)
	// Caps says what the target can do; the runner asks once, in New.
	Caps() Caps
	// Close ends every conversation and process of the target.
	Close()
}

// Conversation carries the exchanges of one case.
type Conversation interface {
	// Do sends one request and returns the reply. faults are the errors
	// the case's fixture declares (fixture.Fault with Path made absolute):
	// the runner passes them only to a target whose Caps.Faults is set,
	// and the target injects them for this request. On error, Reply.Stderr
	// holds what the implementation wrote to stderr, if anything.
	Do(ctx context.Context, req fcp.Request, faults []fixture.Fault) (Reply, error)
	// Release ends the conversation; err is the last exchange error, after
	// which a process is killed so the next case starts a fresh one.
	Release(err error)
}

// TurnConversation is a Conversation that runs turns (PROTOCOL.md §9): a
// binary in session mode, the in-process reference. Turn sends req (its
// seq is the conversation's to set), shows user every event, sends the
// requests user returns, and returns the log of the turn; on error the
// stderr tail, if any, and the log read until then.
type TurnConversation interface {
	Conversation
	Turn(ctx context.Context, req fcp.TurnRequest, user turnlog.User) (*turnlog.Log, string, error)
}

// Reply is the answer to one request.
type Reply struct {
	Response fcp.Response
	// ContentBytes is the byte length of the content string as the
	// implementation sent it.
	ContentBytes int64
	// Stderr is the tail of the implementation's stderr, when an exchange
	// failed.
	Stderr string
}

// Caps are what a target can do, as plain data.
type Caps struct {
	// Faults: the target injects the faults a fixture declares (cases
	// whose fixture declares faults are skipped otherwise).
	Faults bool
	// Stateful: the requests of one conversation share conversation state
	// (a one-shot binary, one process per request, has none; cases with
	// before steps are skipped then).
	Stateful bool
	// Unprivileged: permission checks apply to the implementation (it does
	// not run as root, or emulates a user who is not); cases on
	// permission-restricted fixtures are skipped otherwise.
	Unprivileged bool
	// Owner, when set, owns the fixtures the runner materializes: the
	// user the implementation runs as, or emulates.
	Owner *fixture.Owner
	// GoldenStrict: the target is the reference itself, held to its
	// goldens byte for byte (Options.GoldenStrict).
	GoldenStrict bool
	// Notes are facts about the target a report should show.
	Notes []string
	// CPUTime: each conversation reads the CPU time of the
	// implementation's own processes (it is a CPUClock), which the
	// scaling cases judge (scaling.go); they are skipped otherwise.
	CPUTime bool
}

// CPUClock is a Conversation that reads the CPU time the implementation's
// processes have used so far (fcpclient.Session.CPUTime).
type CPUClock interface {
	CPUTime() (time.Duration, error)
}

// Greeter is a Conversation whose process may not have had hello with
// test_tools yet (a pool's later processes): Greet sends it once, so the
// fcp_* test tools (PROTOCOL.md §9.5) are registered before a turn or a
// call that needs them.
type Greeter interface {
	Greet(ctx context.Context) error
}
