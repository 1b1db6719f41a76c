package journal

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Result texts of recovery (I-JRN-05). The SRD quotes none; each is an
// error result.
const (
	// InterruptedText answers a call that has no journaled result: it may
	// have run, it is never re-run (FR-RES-04c).
	InterruptedText = "Tool call interrupted by a crash; it was not re-run and may have had side effects"
	// DiscardedText replaces every result of a discarded batch (FR-RES-05 2).
	DiscardedText = "Tool result discarded after crash recovery"
)

// The user's choices at a recovery prompt (FR-RES-05).
const (
	ChoiceResume  = fcp.DecisionResume
	ChoiceDiscard = fcp.DecisionDiscard
)

// Recovery is what the journal holds of an interrupted turn.
type Recovery struct {
	// Batch is the turn's last batch when the model was not asked again
	// after it; nil when no batch was interrupted.
	Batch *fcp.RecoveredBatch
	// N is Batch's number in the turn (1 for the first); Batches is the
	// number of batches the turn received.
	N, Batches     int
	turn, batchRow int64
}

// History is the interrupted turn's persisted history, in persistence
// order.
func (j *Journal) History(rec *Recovery) ([]fcp.Message, error) { return j.history(rec.turn) }

// Complete reports whether every call of the batch has a journaled result.
func (r *Recovery) Complete() bool {
	return r.Batch != nil && len(r.Batch.Results) == len(r.Batch.Calls)
}

// Prompt reports whether the user must choose (FR-RES-05): the batch has a
// call without a result (I-JRN-04).
func (r *Recovery) Prompt() bool { return r.Batch != nil && !r.Complete() }

// Recover reads the interrupted turn back: nil when the journal holds none
// (a clean journal offers nothing). It changes nothing; Resolve does.
func (j *Journal) Recover() (*Recovery, error) {
	rec := &Recovery{}
	err := j.db.QueryRow("SELECT id FROM turn WHERE ended IS NULL ORDER BY id DESC LIMIT 1").Scan(&rec.turn)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: reading %s: %w", j.dir, err)
	}
	var state, text string
	err = j.db.QueryRow("SELECT id, n, text, state, (SELECT count(*) FROM batch WHERE turn = ?) FROM batch WHERE turn = ? ORDER BY n DESC LIMIT 1",
		rec.turn, rec.turn).Scan(&rec.batchRow, &rec.N, &text, &state, &rec.Batches)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return rec, nil
	case err != nil:
		return nil, fmt.Errorf("journal: reading the batches of %s: %w", j.dir, err)
	case state == "resumed":
		return rec, nil
	}
	b := &fcp.RecoveredBatch{Text: text, Calls: []fcp.PendingCall{}, Results: []fcp.Message{}}
	rows, err := j.db.Query("SELECT id, name, args, raw_args FROM call WHERE batch = ? ORDER BY idx", rec.batchRow)
	if err != nil {
		return nil, fmt.Errorf("journal: reading the calls of %s: %w", j.dir, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c fcp.PendingCall
		var args, raw sql.NullString
		if err := rows.Scan(&c.ID, &c.Name, &args, &raw); err != nil {
			return nil, fmt.Errorf("journal: reading the calls of %s: %w", j.dir, err)
		}
		if raw.Valid {
			c.RawArgs = &raw.String
		} else {
			c.Args = json.RawMessage(args.String)
		}
		b.Calls = append(b.Calls, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: reading the calls of %s: %w", j.dir, err)
	}
	// Results in call order; a tool_result of this batch is keyed by the
	// batch row so that an id reused by an earlier batch does not count.
	batchResults, err := j.batchResults(rec.batchRow)
	if err != nil {
		return nil, err
	}
	for _, c := range b.Calls {
		if m, ok := batchResults[c.ID]; ok {
			b.Results = append(b.Results, m)
		}
	}
	rec.Batch = b
	return rec, nil
}

func (j *Journal) history(turn int64) ([]fcp.Message, error) {
	rows, err := j.db.Query("SELECT body FROM message WHERE turn = ? ORDER BY pos", turn)
	if err != nil {
		return nil, fmt.Errorf("journal: reading the history of %s: %w", j.dir, err)
	}
	defer rows.Close()
	out := []fcp.Message{}
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("journal: reading the history of %s: %w", j.dir, err)
		}
		var m fcp.Message
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return nil, fmt.Errorf("%w: %s: a history message is not valid JSON (%v); it was left as it is", ErrCorrupt, j.dir, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (j *Journal) batchResults(batchRow int64) (map[string]fcp.Message, error) {
	rows, err := j.db.Query("SELECT call_id, body FROM message WHERE batch = ? AND type = ? ORDER BY pos", batchRow, fcp.MessageToolResult)
	if err != nil {
		return nil, fmt.Errorf("journal: reading the results of %s: %w", j.dir, err)
	}
	defer rows.Close()
	out := map[string]fcp.Message{}
	for rows.Next() {
		var id, body string
		if err := rows.Scan(&id, &body); err != nil {
			return nil, fmt.Errorf("journal: reading the results of %s: %w", j.dir, err)
		}
		var m fcp.Message
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return nil, fmt.Errorf("%w: %s: a result is not valid JSON (%v); it was left as it is", ErrCorrupt, j.dir, err)
		}
		if _, seen := out[id]; !seen { // the first result of an id is the call's (NFR-REL-01)
			out[id] = m
		}
	}
	return out, rows.Err()
}

// Resolved is what Resolve persisted.
type Resolved struct {
	// Messages are the messages written, in order: the batch's assistant
	// text and tool uses when the crash came before they were persisted,
	// then each result added or replaced.
	Messages []fcp.Message
	// Results are the batch's results in call order, as the model will
	// receive them on resume.
	Results []fcp.Message
	// History is the turn's history afterwards.
	History []fcp.Message
}

// Resolve applies the user's choice to rec's batch in one transaction and
// makes rec's turn the running turn again, so that its continuation is
// journaled. ChoiceResume keeps the journaled results and answers each call
// without one with InterruptedText; ChoiceDiscard marks every result failed
// (DiscardedText); the tool uses stay (FR-RES-05). No call is re-run
// (FR-RES-04c). A complete batch takes ChoiceResume. With no batch, the
// interrupted turn is closed as it stands (ended "interrupted").
func (j *Journal) Resolve(rec *Recovery, choice string) (Resolved, error) {
	if rec.Batch == nil {
		if _, err := j.db.Exec("UPDATE turn SET ended = 'interrupted' WHERE id = ?", rec.turn); err != nil {
			return Resolved{}, fmt.Errorf("journal: closing the interrupted turn: %w", err)
		}
		h, err := j.history(rec.turn)
		return Resolved{History: h}, err
	}
	if choice != ChoiceResume && choice != ChoiceDiscard {
		return Resolved{}, fmt.Errorf("journal: recovery choice %q is unknown; choose %q or %q", choice, ChoiceResume, ChoiceDiscard)
	}
	j.turn = rec.turn
	tx, err := j.db.Begin()
	if err != nil {
		return Resolved{}, fmt.Errorf("journal: resolving batch %d: %w", rec.N, err)
	}
	defer tx.Rollback()
	var out Resolved
	// The crash may have come before the batch was persisted in full
	// (IT-JRN-01, I-JRN-13): its text and the first of its tool uses, in
	// call order, may be in the history; the rest follow them.
	var texts, uses int
	if err := tx.QueryRow("SELECT count(*) FILTER (WHERE type = ?), count(*) FILTER (WHERE type = ?) FROM message WHERE batch = ?",
		fcp.MessageAssistant, fcp.MessageToolUse, rec.batchRow).Scan(&texts, &uses); err != nil {
		return Resolved{}, fmt.Errorf("journal: resolving batch %d: %w", rec.N, err)
	}
	var msgs []fcp.Message
	if texts == 0 && rec.Batch.Text != "" {
		msgs = append(msgs, fcp.Message{Type: fcp.MessageAssistant, Text: rec.Batch.Text})
	}
	for _, c := range rec.Batch.Calls[min(uses, len(rec.Batch.Calls)):] {
		msgs = append(msgs, fcp.Message{Type: fcp.MessageToolUse, ID: c.ID, Name: c.Name, Args: c.Args, RawArgs: c.RawArgs})
	}
	for _, m := range msgs {
		if err := j.insert(tx, rec.N, m); err != nil {
			return Resolved{}, err
		}
	}
	out.Messages = append(out.Messages, msgs...)
	have := map[string]fcp.Message{}
	for _, m := range rec.Batch.Results {
		have[m.ID] = m
	}
	for _, c := range rec.Batch.Calls {
		m, ok := have[c.ID]
		switch {
		case choice == ChoiceDiscard && ok:
			m = failed(c.ID, DiscardedText)
			body, err := json.Marshal(m)
			if err != nil {
				return Resolved{}, fmt.Errorf("journal: encoding a result: %w", err)
			}
			if _, err := tx.Exec("UPDATE message SET body = ? WHERE pos = (SELECT min(pos) FROM message WHERE batch = ? AND call_id = ? AND type = ?)",
				string(body), rec.batchRow, c.ID, fcp.MessageToolResult); err != nil {
				return Resolved{}, fmt.Errorf("journal: discarding the result of %q: %w", c.ID, err)
			}
			out.Messages = append(out.Messages, m)
		case !ok:
			text := InterruptedText
			if choice == ChoiceDiscard {
				text = DiscardedText
			}
			m = failed(c.ID, text)
			if err := j.insert(tx, rec.N, m); err != nil {
				return Resolved{}, err
			}
			out.Messages = append(out.Messages, m)
		}
		out.Results = append(out.Results, m)
	}
	if _, err := tx.Exec("UPDATE batch SET state = 'resolved' WHERE id = ?", rec.batchRow); err != nil {
		return Resolved{}, fmt.Errorf("journal: resolving batch %d: %w", rec.N, err)
	}
	if err := tx.Commit(); err != nil {
		return Resolved{}, fmt.Errorf("journal: resolving batch %d: %w", rec.N, err)
	}
	h, err := j.history(rec.turn)
	if err != nil {
		return Resolved{}, err
	}
	out.History = h
	return out, nil
}

func failed(id, text string) fcp.Message {
	t := true
	return fcp.Message{Type: fcp.MessageToolResult, ID: id, Content: &text, IsError: &t}
}
