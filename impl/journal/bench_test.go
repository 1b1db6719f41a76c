package journal_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/forge-conform/forge-conform/impl/journal"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// BenchmarkToolCall is the journaling overhead of one tool call, fsync
// included: its share of the batch record, its tool use and its result.
func BenchmarkToolCall(b *testing.B) {
	j, err := journal.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	if err := j.BeginTurn(1); err != nil {
		b.Fatal(err)
	}
	content := string(make([]byte, 512))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		id := fmt.Sprintf("c%d", i)
		c := fcp.ModelCall{ID: id, Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)}
		if err := j.Received(i+1, "", []fcp.ModelCall{c}); err != nil {
			b.Fatal(err)
		}
		if err := j.Persisted(i+1, fcp.Message{Type: fcp.MessageToolUse, ID: id, Name: c.Name, Args: c.Args}); err != nil {
			b.Fatal(err)
		}
		if err := j.Persisted(i+1, result(id, content, false)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecover1000 is the recovery time of a journal of 1,000 batches
// (issue 8's target: under 50 ms): open, check, read the interrupted turn.
func BenchmarkRecover1000(b *testing.B) {
	dir := b.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	if err := j.BeginTurn(1); err != nil {
		b.Fatal(err)
	}
	if err := j.Persisted(0, user); err != nil {
		b.Fatal(err)
	}
	for n := 1; n <= 1000; n++ {
		if err := j.Received(n, "", calls); err != nil {
			b.Fatal(err)
		}
		for i, m := range uses() {
			if err := j.Persisted(n, m); err != nil {
				b.Fatal(err)
			}
			if n < 1000 || i == 0 {
				if err := j.Persisted(n, result(m.ID, "some output", false)); err != nil {
					b.Fatal(err)
				}
			}
		}
		if n < 1000 {
			if err := j.Resuming(n); err != nil {
				b.Fatal(err)
			}
		}
	}
	j.Close()
	b.ResetTimer()
	for b.Loop() {
		j, err := journal.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		rec, err := j.Recover()
		if err != nil || rec == nil || rec.N != 1000 || !rec.Prompt() {
			b.Fatalf("Recover = %+v, %v", rec, err)
		}
		b.StopTimer()
		j.Close()
		b.StartTimer()
	}
}
