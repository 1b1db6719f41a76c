package runner

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

func events(lines ...fcp.TurnLine) *turnlog.Log {
	l := &turnlog.Log{}
	for i := range lines {
		l.Add(turnlog.Entry{Kind: turnlog.Event, Line: &lines[i]})
	}
	return l
}

func call(id, cmd string) fcp.ModelCall {
	return fcp.ModelCall{ID: id, Name: "run_command", Args: json.RawMessage(`{"command":"` + cmd + `"}`)}
}

func pending(id, cmd string) fcp.PendingCall {
	return fcp.PendingCall{ID: id, Name: "run_command", Args: json.RawMessage(`{ "command" : "` + cmd + `" }`)}
}

func okResult(id string) fcp.Message {
	f := false
	return fcp.Message{Type: fcp.MessageToolResult, ID: id, IsError: &f}
}

func failedIDs(fs []check.Failure) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.IDs...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// What a crashed phase reported durable must be recovered; each way of
// losing it names its requirement (I-JRN-11).
func TestKeptPromise(t *testing.T) {
	model := []fcp.ModelResponse{{Text: "Run.", ToolCalls: []fcp.ModelCall{call("c1", "a"), call("c2", "b")}}, {Text: "Done."}}
	crashAt := func(cp *fcp.CrashPoint, evs ...fcp.TurnLine) *promise {
		return promised(phase{req: fcp.TurnRequest{Model: model, Crash: cp}}, events(evs...), nil)
	}
	journaledCalls := fcp.TurnLine{Event: fcp.EventJournaled, IDs: []string{"c1", "c2"}}
	recovered := func(b *fcp.RecoveredBatch) *turnlog.Log {
		return events(fcp.TurnLine{Event: fcp.EventRecovered, Batch: b})
	}
	both := []fcp.PendingCall{pending("c1", "a"), pending("c2", "b")}
	tests := []struct {
		name string
		p    *promise
		got  *fcp.RecoveredBatch
		want []string
	}{
		{"calls_received, all there", crashAt(&fcp.CrashPoint{Point: fcp.CrashCallsReceived}),
			&fcp.RecoveredBatch{Text: "Run.", Calls: both}, nil},
		{"calls_received, nothing recovered", crashAt(&fcp.CrashPoint{Point: fcp.CrashCallsReceived}), nil, []string{"FR-RES-04a"}},
		{"a journaled call missing", crashAt(nil, journaledCalls),
			&fcp.RecoveredBatch{Text: "Run.", Calls: both[:1]}, []string{"FR-RES-04a"}},
		{"calls reordered", crashAt(nil, journaledCalls),
			&fcp.RecoveredBatch{Text: "Run.", Calls: []fcp.PendingCall{both[1], both[0]}}, []string{"FR-RES-04"}},
		{"arguments changed", crashAt(nil, journaledCalls),
			&fcp.RecoveredBatch{Text: "Run.", Calls: []fcp.PendingCall{both[0], pending("c2", "x")}}, []string{"FR-RES-04"}},
		{"text lost", crashAt(nil, journaledCalls), &fcp.RecoveredBatch{Calls: both}, []string{"FR-RES-04"}},
		{"result at the crash point lost", crashAt(&fcp.CrashPoint{Point: fcp.CrashResultJournaled, ID: "c1"}, journaledCalls),
			&fcp.RecoveredBatch{Text: "Run.", Calls: both}, []string{"FR-RES-04b"}},
		{"journaled result lost", crashAt(nil, journaledCalls, fcp.TurnLine{Event: fcp.EventJournaled, ID: "c1"}),
			&fcp.RecoveredBatch{Text: "Run.", Calls: both}, []string{"FR-RES-04b"}},
		{"journaled result kept", crashAt(nil, journaledCalls, fcp.TurnLine{Event: fcp.EventJournaled, ID: "c1"}),
			&fcp.RecoveredBatch{Text: "Run.", Calls: both, Results: []fcp.Message{okResult("c1")}}, nil},
		{"nothing was journaled", crashAt(nil), nil, nil},
		{"text_persisted promises the batch", crashAt(&fcp.CrashPoint{Point: fcp.CrashTextPersisted}), nil, []string{"FR-RES-04a"}},
		{"text_persisted, all there", crashAt(&fcp.CrashPoint{Point: fcp.CrashTextPersisted}),
			&fcp.RecoveredBatch{Text: "Run.", Calls: both}, nil},
		{"tool_use_persisted promises its batch", crashAt(&fcp.CrashPoint{Point: fcp.CrashToolUsePersisted, ID: "c2"}),
			&fcp.RecoveredBatch{Text: "Run.", Calls: both[:1]}, []string{"FR-RES-04a"}},
		{"text_persisted of a batch the script lacks", crashAt(&fcp.CrashPoint{Point: fcp.CrashTextPersisted, Batch: 2}), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := failedIDs(keptPromise("recover[0]", tt.p, recovered(tt.got)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("failures name %v; want %v", got, tt.want)
			}
		})
	}
}

// Counters name FR-RES-04a/04b when a tool ran before a crash point's
// record, FR-RES-04c when recovery ran one again.
func TestCounters(t *testing.T) {
	c := &corpus.Case{IDs: []string{"IT-JRN-02"}, Turn: &corpus.TurnSpec{Crash: &fcp.CrashPoint{Point: fcp.CrashResultJournaled, ID: "c1"}},
		Expect: corpus.Expect{Turn: &corpus.TurnExpect{CrashCounts: map[string]int{"a": 1, "b": 0}, Counts: map[string]int{"a": 1, "b": 0}}}}
	if got := failedIDs(crashCounts(c, map[string]int{"a": 1, "b": 1}, c.Expect.Turn.CrashCounts)); !slices.Equal(got, []string{"FR-RES-04b"}) {
		t.Errorf("a tool past the crash point: %v; want FR-RES-04b", got)
	}
	if got := failedIDs(crashCounts(c, map[string]int{"a": 0, "b": 0}, c.Expect.Turn.CrashCounts)); !slices.Equal(got, []string{"IT-JRN-02"}) {
		t.Errorf("a tool that did not run: %v; want the case's IDs", got)
	}
	if got := failedIDs(finalCounts(c, map[string]int{"a": 2, "b": 0}, map[string]int{"a": 1, "b": 0})); !slices.Equal(got, []string{"FR-RES-04c"}) {
		t.Errorf("a tool run again on recovery: %v; want FR-RES-04c", got)
	}
	if got := failedIDs(finalCounts(c, map[string]int{"a": 1, "b": 0}, map[string]int{"a": 1, "b": 0})); got != nil {
		t.Errorf("right counts fail %v", got)
	}
}

// A case that crashes at a crash point hello's crash_points does not name
// is skipped with that reason; the base three need no declaration.
func TestExtraCrashPointsNeedDeclaring(t *testing.T) {
	tests := []struct {
		name     string
		turn, st *fcp.CrashPoint
		declared []string
		skip     bool
	}{
		{"base point", &fcp.CrashPoint{Point: fcp.CrashCallsReceived}, nil, nil, false},
		{"extra point undeclared", &fcp.CrashPoint{Point: fcp.CrashTextPersisted}, nil, nil, true},
		{"extra point in a recover step", nil, &fcp.CrashPoint{Point: fcp.CrashToolUsePersisted, ID: "c1"}, []string{fcp.CrashTextPersisted}, true},
		{"extra point declared", &fcp.CrashPoint{Point: fcp.CrashTextPersisted}, nil, fcp.ExtraCrashPoints(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runner{caps: Caps{Stateful: true}, target: freshTarget{}, ops: map[string]bool{fcp.OpRecover: true},
				hello: fcp.Response{CrashPoints: tt.declared}}
			c := &corpus.Case{Turn: &corpus.TurnSpec{Crash: tt.turn, Recover: []corpus.RecoverStep{{Crash: tt.st}}}}
			why := r.durableUnsupported(c)
			if (why != "") != tt.skip {
				t.Fatalf("durableUnsupported = %q; want a skip: %v", why, tt.skip)
			}
			if tt.skip && !strings.Contains(why, "crash_points") {
				t.Errorf("skip reason %q does not say to declare crash_points", why)
			}
		})
	}
}

// freshTarget is a Target that can open fresh processes (it is never
// asked to).
type freshTarget struct{ Target }

func (freshTarget) OpenFresh(context.Context) (Conversation, error) { return nil, nil }
