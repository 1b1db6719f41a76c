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

// Failure is one violated check.
type Failure struct {
	// IDs are the requirements violated: the invariant's ID, or the case's
	// IDs when the hand-written expectation failed.
	IDs     []string `json:"ids"`
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	// Diff is a go-cmp diff, "-want +got", when there is one.
	Diff string `json:"diff,omitempty"`
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
	// ContentBytes is the byte length of the content as the implementation
	// sent it, before normalization.
	ContentBytes int64
}

// Response runs the expectation and the tool's invariants.
func Response(in Input) []Failure {
	var out []Failure
	out = append(out, Expectation(in)...)
	out = append(out, Invariants(in)...)
	return out
}

// Invariants runs the invariants registered for the case's tool.
func Invariants(in Input) []Failure {
	if in.Case.Op != "call" {
		return nil
	}
	switch in.Case.Tool {
	case "list_directory":
		return listDirInvariants(in)
	case "list_dir":
		return codexInvariants(in)
	case "read_file":
		return readFileInvariants(in)
	case "search_files":
		return searchFilesInvariants(in)
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
