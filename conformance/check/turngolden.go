package check

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/internal/jsonwalk"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// KindTurnGolden marks a difference from a turn's golden file. The SRD
// leaves much of a turn's bytes open (message texts, where pre-resolved
// results go, a kept \r: I-EXE-07, I-EXE-10, I-EXE-12), so the case's
// expectation decides and a golden difference is a note.
const KindTurnGolden = "turn-golden"

// bigText is the length above which a golden shows a text's length and
// digest instead of the text.
const bigText = 2048

// bigArgsText is the length of a tool use's arguments above which a golden
// cuts their big strings (a size-limit case's, FR-LIM-03); smaller
// arguments are shown whole.
const bigArgsText = 64 << 10

// TurnGolden renders a turn's golden file from its normalized log: one
// line per event (a call's chunks of one stream coalesced, so chunk
// boundaries never matter, I-EXE-20; model_request tools by name),
// then the end state and the history. It holds no timing.
func TurnGolden(log *turnlog.Log) []byte {
	var b bytes.Buffer
	line := func(v any) {
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
	}
	events := log.Events()
	// A call's chunks of one stream, concatenated, shown where the first
	// one came (how stdout and stderr interleave is not deterministic).
	streams := map[[2]string]string{}
	for _, ev := range events {
		if ev.Event == fcp.EventStdout || ev.Event == fcp.EventStderr {
			streams[[2]string{ev.ID, ev.Event}] += ev.Chunk
		}
	}
	shown := map[[2]string]bool{}
	for i := 0; i < len(events); i++ {
		ev := events[i]
		switch ev.Event {
		case fcp.EventStdout, fcp.EventStderr:
			k := [2]string{ev.ID, ev.Event}
			if shown[k] {
				continue
			}
			shown[k] = true
			line(map[string]any{"event": ev.Event, "id": ev.ID, "text": big(streams[k])})
		case fcp.EventModelRequest:
			var names []string
			if ev.Tools != nil {
				for _, t := range *ev.Tools {
					names = append(names, t.Name)
				}
			}
			var msgs []fcp.Message
			if ev.Messages != nil {
				msgs = goldenMessages(*ev.Messages)
			}
			line(map[string]any{"event": ev.Event, "iteration": deref(ev.Iteration), "tools": names, "messages": msgs})
		case fcp.EventMessage:
			line(map[string]any{"event": ev.Event, "message": goldenMessages([]fcp.Message{*ev.Message})[0]})
		default:
			ev.Seq = 0
			line(ev)
		}
	}
	if f := log.Final(); f != nil {
		ok := f.OK != nil && *f.OK
		line(map[string]any{"ok": ok, "end": f.End})
		for _, m := range goldenMessages(f.History) {
			line(m)
		}
	}
	return b.Bytes()
}

// goldenMessages are ms as a golden shows them: each content with
// search_files' elapsed_ms masked (the one field that varies between runs,
// I-SF-18), then cut to its size and hash when big; so are a tool use's
// big argument strings (a size-limit case's, FR-LIM-03).
func goldenMessages(ms []fcp.Message) []fcp.Message {
	out := make([]fcp.Message, len(ms))
	for i, m := range ms {
		if len(m.Args) > bigArgsText {
			m.Args = bigArgs(m.Args)
		}
		if m.RawArgs != nil && len(*m.RawArgs) > bigArgsText {
			r := big(*m.RawArgs)
			m.RawArgs = &r
		}
		if m.Content != nil {
			c := big(elapsedField.ReplaceAllString(*m.Content, `"elapsed_ms":0`))
			m.Content = &c
		}
		out[i] = m
	}
	return out
}

// bigArgs is args with each big string in it cut as big does (args that
// are not JSON are cut whole, as a string).
func bigArgs(args json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		v = string(args)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(jsonwalk.Strings(v, big))
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func big(s string) string {
	if len(s) <= bigText {
		return s
	}
	return fmt.Sprintf("<%d bytes, sha256 %x>", len(s), sha256.Sum256([]byte(s)))
}

// CompareTurnGolden compares a turn's golden file with its rendering; a
// difference is a note (see KindTurnGolden).
func CompareTurnGolden(want, got []byte, ids []string) []Failure {
	if bytes.Equal(want, got) {
		return nil
	}
	return []Failure{{IDs: ids, Kind: KindTurnGolden, Severity: SeverityNote,
		Message: "the turn differs from the reference's golden transcript where the SRD leaves the bytes open",
		Diff:    diff.Text(string(want), string(got))}}
}
