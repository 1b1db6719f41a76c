// Package check decides whether one response conforms. Three kinds of
// checks run on every case:
//
//   - the case's expectation, written by hand from the SRD (expect.go);
//   - invariants derived from the SRD, each tagged with the requirement it
//     enforces, run on every response of a tool (listdir.go, codex.go);
//   - the exact golden bytes, with free-text fields masked (golden.go).
//
// A Failure names the requirement it violates, so a report can say which ID
// broke on which case.
package check

import (
	"encoding/json"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Kinds of check, as reports name them.
const (
	KindExpect    = "expect"
	KindInvariant = "invariant"
	KindGolden    = "golden"
	KindProtocol  = "protocol"
)

// Severities of a failure. A check that the SRD states with MUST fails the
// case; one that rests on SHOULD/MAY or on advice warns (and fails only
// under --strict); a golden difference where the SRD does not fix the bytes
// is a note, never a failure.
const (
	SeverityFail = ""     // a MUST the response breaks
	SeverityWarn = "warn" // a SHOULD/MAY or advice the response does not follow
	SeverityNote = "note" // differs from the reference where the spec leaves the bytes open
)

// Failure is one violated check.
type Failure struct {
	// IDs are the requirements violated: the invariant's ID, or the case's
	// IDs when the hand-written expectation failed.
	IDs     []string `json:"ids"`
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	// Diff is a unified diff ("--- want", "+++ got") of the expected and
	// actual text or pretty-printed JSON, when there is one
	// (conformance/diff).
	Diff string `json:"diff,omitempty"`
	// Severity is SeverityFail (the zero value), SeverityWarn or
	// SeverityNote.
	Severity string `json:"severity,omitempty"`
}

// Input is what every check sees: the case, the normalized response (fixture
// paths replaced by $ROOT and $OUTSIDE) and the call exactly as sent.
type Input struct {
	Case *corpus.Case
	Resp fcp.Response
	// Args are the case's arguments as written ($ROOT not expanded, like
	// the normalized response), decoded.
	Args map[string]any
	// Config is the call's config object, decoded ({"tools":{...}}).
	Config map[string]any
	// Ctx is the call's ctx as sent.
	Ctx fcp.Ctx
	// Root is the fixture root on disk (what $ROOT stands for), so that an
	// invariant can compare a response with the files it describes; empty
	// when there is none.
	Root string
	// ContentBytes is the byte length of the content as the implementation
	// sent it, before normalization.
	ContentBytes int64
	// Before and After are the fixture's snapshots around the call, taken
	// when the expectation states a tree (nil otherwise).
	Before, After Snapshot
}

// Response runs the expectation and the tool's invariants.
func Response(in Input) []Failure {
	var out []Failure
	out = append(out, Expectation(in)...)
	out = append(out, Invariants(in)...)
	return out
}

// Invariants runs the invariants registered for the case's op (Ops) and,
// for a call, those of its tool (Tools).
func Invariants(in Input) []Failure {
	if inv := Ops()[in.Case.Op]; inv != nil {
		return inv(in)
	}
	if in.Case.Op != "call" {
		return nil
	}
	if inv := Tools()[in.Case.Tool].Invariants; inv != nil {
		return inv(in)
	}
	return nil
}

func fail(kind, msg string, ids ...string) Failure {
	return Failure{IDs: ids, Kind: kind, Message: msg}
}

// DecodeObject decodes raw JSON into a map, numbers kept as json.Number.
func DecodeObject(raw []byte) (map[string]any, error) {
	if len(raw) == 0 {
		return map[string]any{}, nil
	}
	var v map[string]any
	if err := decodeJSON(raw, &v); err != nil {
		return nil, err
	}
	if v == nil {
		v = map[string]any{}
	}
	return v, nil
}

func decodeJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytesReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}
