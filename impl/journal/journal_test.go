package journal_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/journal"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

var _ executor.Journal = (*journal.Journal)(nil)

func bumpVersion(t *testing.T, path string, v int) { journal.BumpVersion(t, path, v) }

func open(t *testing.T, dir string) *journal.Journal {
	t.Helper()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func str(s string) *string { return &s }
func bol(b bool) *bool     { return &b }

func result(id, content string, isErr bool) fcp.Message {
	return fcp.Message{Type: fcp.MessageToolResult, ID: id, Content: str(content), IsError: bol(isErr)}
}

var (
	user  = fcp.Message{Type: fcp.MessageUser, Text: "go"}
	text  = fcp.Message{Type: fcp.MessageAssistant, Text: "Running."}
	calls = []fcp.ModelCall{
		{ID: "c1", Name: "run_command", Args: json.RawMessage(`{"command":"echo 1"}`)},
		{ID: "c2", Name: "read_file", RawArgs: str(`{"path":`)},
		{ID: "c3", Name: "fcp_echo", Args: json.RawMessage(`{"result":"x"}`)},
	}
)

func uses() []fcp.Message {
	var out []fcp.Message
	for _, c := range calls {
		out = append(out, fcp.Message{Type: fcp.MessageToolUse, ID: c.ID, Name: c.Name, Args: c.Args, RawArgs: c.RawArgs})
	}
	return out
}

func pending() []fcp.PendingCall {
	var out []fcp.PendingCall
	for _, c := range calls {
		out = append(out, fcp.PendingCall{ID: c.ID, Name: c.Name, Args: c.Args, RawArgs: c.RawArgs})
	}
	return out
}

// whole is the number of messages of the batch: its text and tool uses.
var whole = 1 + len(calls)

// record writes a turn up to a crash: the calls received, then the first
// persisted messages of the batch (its text, then its tool uses), then
// the given results.
func record(t *testing.T, j *journal.Journal, persisted int, results ...fcp.Message) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(j.BeginTurn(1))
	must(j.Persisted(0, user))
	must(j.Received(1, text.Text, calls))
	for _, m := range append([]fcp.Message{text}, uses()...)[:persisted] {
		must(j.Persisted(1, m))
	}
	for _, m := range results {
		must(j.Persisted(1, m))
	}
}

func TestCleanJournalOffersNothing(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	rec, err := j.Recover()
	if err != nil || rec != nil {
		t.Fatalf("Recover of a new journal = %+v, %v; want nil, nil", rec, err)
	}
	record(t, j, whole, result("c1", "1", false), result("c2", "bad", true), result("c3", "x", false))
	if err := j.Resuming(1); err != nil {
		t.Fatal(err)
	}
	if err := j.Ended(fcp.EndDone); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j = open(t, dir)
	if rec, err := j.Recover(); err != nil || rec != nil {
		t.Fatalf("Recover of an ended turn = %+v, %v; want nil, nil", rec, err)
	}
}

func TestRecover(t *testing.T) {
	r1 := result("c1", "1", false)
	interrupted := []fcp.Message{result("c1", journal.InterruptedText, true), result("c2", journal.InterruptedText, true), result("c3", journal.InterruptedText, true)}
	tests := []struct {
		name      string
		persisted int // messages of the batch persisted before the crash
		results   []fcp.Message
		choice    string
		// want
		prompt   bool
		messages []fcp.Message // what Resolve writes
		results2 []fcp.Message // the batch's results afterwards
	}{
		{name: "before the batch is persisted (IT-JRN-01)", persisted: 0, choice: journal.ChoiceResume, prompt: true,
			messages: append(append([]fcp.Message{text}, uses()...), interrupted...), results2: interrupted},
		{name: "after the text (I-JRN-13)", persisted: 1, choice: journal.ChoiceResume, prompt: true,
			messages: append(uses(), interrupted...), results2: interrupted},
		{name: "between tool uses (I-JRN-13)", persisted: 2, choice: journal.ChoiceResume, prompt: true,
			messages: append(uses()[1:], interrupted...), results2: interrupted},
		{name: "after the last tool use", persisted: whole, choice: journal.ChoiceResume, prompt: true,
			messages: interrupted, results2: interrupted},
		{name: "after the first result, resume", persisted: whole, results: []fcp.Message{r1}, choice: journal.ChoiceResume, prompt: true,
			messages: []fcp.Message{result("c2", journal.InterruptedText, true), result("c3", journal.InterruptedText, true)},
			results2: []fcp.Message{r1, result("c2", journal.InterruptedText, true), result("c3", journal.InterruptedText, true)}},
		{name: "after the first result, discard", persisted: whole, results: []fcp.Message{r1}, choice: journal.ChoiceDiscard, prompt: true,
			messages: []fcp.Message{result("c1", journal.DiscardedText, true), result("c2", journal.DiscardedText, true), result("c3", journal.DiscardedText, true)},
			results2: []fcp.Message{result("c1", journal.DiscardedText, true), result("c2", journal.DiscardedText, true), result("c3", journal.DiscardedText, true)}},
		{name: "every result in, no resume yet", persisted: whole, choice: journal.ChoiceResume, prompt: false,
			results:  []fcp.Message{r1, result("c2", "e", true), result("c3", "x", false)},
			results2: []fcp.Message{r1, result("c2", "e", true), result("c3", "x", false)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			j := open(t, dir)
			record(t, j, tc.persisted, tc.results...)
			j.Close() // the crash: a fresh process opens the journal
			j = open(t, dir)
			rec, err := j.Recover()
			if err != nil || rec == nil {
				t.Fatalf("Recover = %v, %v; want a recovery", rec, err)
			}
			want := &fcp.RecoveredBatch{Text: text.Text, Calls: pending(), Results: tc.results}
			if want.Results == nil {
				want.Results = []fcp.Message{}
			}
			if diff := cmp.Diff(want, rec.Batch); diff != "" {
				t.Errorf("recovered batch (-want +got):\n%s", diff)
			}
			if rec.Prompt() != tc.prompt {
				t.Errorf("Prompt() = %v, want %v", rec.Prompt(), tc.prompt)
			}
			// Recover changes nothing: a second read is identical.
			again, err := j.Recover()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(rec.Batch, again.Batch); diff != "" {
				t.Errorf("second Recover differs (-first +second):\n%s", diff)
			}
			res, err := j.Resolve(rec, tc.choice)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.messages, res.Messages); diff != "" {
				t.Errorf("Resolve wrote (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.results2, res.Results); diff != "" {
				t.Errorf("Resolve results (-want +got):\n%s", diff)
			}
			wantHist := append(append([]fcp.Message{user, text}, uses()...), tc.results2...)
			if diff := cmp.Diff(wantHist, res.History); diff != "" {
				t.Errorf("history after Resolve (-want +got):\n%s", diff)
			}
			// A crash right after the resolution: the batch is complete,
			// no prompt, the same results.
			j.Close()
			j = open(t, dir)
			rec2, err := j.Recover()
			if err != nil || rec2 == nil {
				t.Fatalf("Recover after Resolve = %v, %v", rec2, err)
			}
			if rec2.Prompt() {
				t.Errorf("a resolved batch prompts again")
			}
			if diff := cmp.Diff(tc.results2, rec2.Batch.Results); diff != "" {
				t.Errorf("results after a second crash (-want +got):\n%s", diff)
			}
			if err := j.BeginTurn(2); !errors.Is(err, journal.ErrInterrupted) {
				t.Errorf("BeginTurn over an interrupted turn = %v, want ErrInterrupted", err)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	t.Run("locked", func(t *testing.T) {
		dir := t.TempDir()
		open(t, dir)
		if _, err := journal.Open(dir); !errors.Is(err, journal.ErrLocked) {
			t.Fatalf("second Open = %v, want ErrLocked", err)
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		dir := t.TempDir()
		garbage := []byte("this is not a database, but it is somebody's file\n")
		path := filepath.Join(dir, journal.DBName)
		if err := os.WriteFile(path, garbage, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := journal.Open(dir); !errors.Is(err, journal.ErrCorrupt) {
			t.Fatalf("Open of garbage = %v, want ErrCorrupt", err)
		}
		if got, _ := os.ReadFile(path); string(got) != string(garbage) {
			t.Errorf("the corrupt file was changed")
		}
		if _, err := journal.Open(dir); !errors.Is(err, journal.ErrCorrupt) {
			t.Errorf("the lock was not released after a refusal: %v", err)
		}
	})
	t.Run("newer schema", func(t *testing.T) {
		dir := t.TempDir()
		j := open(t, dir)
		j.Close()
		bumpVersion(t, filepath.Join(dir, journal.DBName), journal.SchemaVersion+1)
		if _, err := journal.Open(dir); !errors.Is(err, journal.ErrNewer) {
			t.Fatalf("Open of a newer schema = %v, want ErrNewer", err)
		}
	})
	t.Run("relative", func(t *testing.T) {
		if _, err := journal.Open("rel/dir"); err == nil {
			t.Fatal("Open of a relative directory succeeded")
		}
	})
}
