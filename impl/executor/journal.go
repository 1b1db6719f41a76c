package executor

import (
	"context"

	"github.com/forge-conform/forge-conform/impl/executor/policy"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Journal is the durable record of a turn (FR-RES-04): the engine calls it
// at each point and goes on only when the call returned, so that what it
// recorded survives a crash. Turn.Journal nil means no journal. An error
// ends the turn with that error, unended in the journal.
type Journal interface {
	// Received records batch n of the turn (1 for the first response
	// with tool calls) as the model's response arrives: its text and its
	// calls in order, before anything of it is persisted (FR-RES-04a).
	Received(n int, text string, calls []fcp.ModelCall) error
	// Persisted records one history message, in persistence order
	// (FR-RES-01); n is the batch of an assistant text, tool use or result
	// (0 outside a batch). A result is recorded the moment it is complete,
	// before the next tool starts (FR-RES-04b).
	Persisted(n int, m fcp.Message) error
	// Resuming records that batch n is complete and the model is asked
	// again (FR-RES-02).
	Resuming(n int) error
	// Ended records the end of the turn (fcp.EndDone, ...).
	Ended(end string) error
}

// journaled reports a durable record to the user (spec/PROTOCOL.md §10.1).
func (r *turnRun) journaled(id string, ids []string) error {
	return r.ui.Event(fcp.TurnLine{Event: fcp.EventJournaled, ID: id, IDs: ids})
}

// RecoveryUI is implemented by UIs that can put a recovery prompt to the
// user (FR-RES-05): it waits for one of choices (fcp.DecisionResume,
// fcp.DecisionDiscard); ctx's error when ctx ends first.
type RecoveryUI interface {
	ChooseRecovery(ctx context.Context, choices []string) (string, error)
}

// Resumption is an interrupted turn read back from its journal after the
// user's recovery choice: its history so far, and the results of its last
// batch in call order.
type Resumption struct {
	History []fcp.Message
	// Results of batch Batch; the model receives them on resume.
	Results []fcp.Message
	// Batch is the number of the turn's last batch; Batches the number of
	// enabled-mode batches it ran (for FR-RES-03's limit).
	Batch, Batches int
}

// Continue resumes an interrupted turn after recovery: in enabled mode it
// asks the model again with the batch's results (FR-RES-02) and runs the
// rest of the turn with t.Model; in the other modes the turn ends (they do
// not auto-resume, I-EXE-04). t.User is not used. The outcome's history is
// the whole turn's.
func (e *Engine) Continue(ctx context.Context, t Turn, from Resumption, ui UI) (Outcome, error) {
	v, err := e.newEnv(t)
	if err != nil {
		return Outcome{}, err
	}
	r := &turnRun{e: e, env: v, ui: ui, j: t.Journal, nBatch: from.Batch,
		history: append([]fcp.Message{}, from.History...)}
	end := fcp.EndDone
	if v.loop.Mode == policy.Enabled {
		end, err = r.from(ctx, t, from.Results, from.Batch, from.Batches, from.Batch)
	}
	if err == nil && r.j != nil {
		err = r.j.Ended(end)
	}
	return Outcome{End: end, History: r.history}, err
}
