package mutants

import (
	"context"
	"sync"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// resumeApproveMutants break the conversation a recovery resumes
// (FR-RES-02, FR-RES-05): its new calls are gated as any call is, and an
// approved one runs. The defect is put in through WrapJournal, which sees
// only journaled turns and recoveries, and holds for every batch after
// the first: in its one case that is the batch the recovered
// conversation asks for.
func resumeApproveMutants() []Mutant {
	return []Mutant{
		{
			Name: "resumed-confirmation-denied", Doc: "after a recovery prompt, the resumed conversation's confirmations are answered deny_all whatever the user decides (every batch after a journaled turn's first)",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/turn-durable-resume-then-approve"}, Process: true,
			Breaks:  ids("tool_executor", "FR-RES-05"),
			Options: reference.Options{WrapJournal: denyLaterBatches},
		},
	}
}

// batchJournal remembers the latest batch the model's responses started.
type batchJournal struct {
	executor.Journal
	mu sync.Mutex
	n  int
}

func (j *batchJournal) Received(n int, text string, calls []fcp.ModelCall) error {
	j.mu.Lock()
	j.n = max(j.n, n)
	j.mu.Unlock()
	return j.Journal.Received(n, text, calls)
}

func (j *batchJournal) batch() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n
}

// denyingUI answers the confirmations of batches after the first deny_all
// without asking.
type denyingUI struct {
	executor.UI
	j *batchJournal
}

func (u denyingUI) Confirm(ctx context.Context, reqs []fcp.Confirmation) (executor.Decision, error) {
	if u.j.batch() > 1 {
		return executor.Decision{Kind: fcp.DecisionDenyAll}, nil
	}
	return u.UI.Confirm(ctx, reqs)
}

func denyLaterBatches(j executor.Journal, ui executor.UI) (executor.Journal, executor.UI) {
	bj := &batchJournal{Journal: j}
	return bj, denyingUI{UI: ui, j: bj}
}
