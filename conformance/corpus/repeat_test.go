package corpus_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// turnFile is a case file with one turn case whose model script is model.
func turnFile(model string) fstest.MapFS {
	return fstest.MapFS{"tool_executor/a.json": {Data: []byte(`{
  "spec": "tool_executor",
  "cases": [
    {"name": "t", "ids": ["FR-LIM-03"], "op": "turn",
     "turn": {"user": "go", "model": ` + model + `},
     "expect": {"turn": {"end": ["done"]}}}
  ]
}`)}}
}

func TestRepeatExpands(t *testing.T) {
	tests := []struct {
		name, model string
		want        []fcp.ModelResponse
	}{
		{"in args", `[{"tool_calls": [{"id": "c1", "name": "fcp_echo", "args": {"result": {"$repeat": "ab", "times": 3}, "n": 1.50}}]}]`,
			[]fcp.ModelResponse{{ToolCalls: []fcp.ModelCall{{ID: "c1", Name: "fcp_echo", Args: json.RawMessage(`{"n":1.50,"result":"ababab"}`)}}}}},
		{"nested in an array", `[{"tool_calls": [{"id": "c1", "name": "t", "args": {"l": [{"$repeat": "<&>", "times": 2}, "$ROOT"]}}]}]`,
			[]fcp.ModelResponse{{ToolCalls: []fcp.ModelCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{"l":["<&><&>","$ROOT"]}`)}}}}},
		{"text and raw_args", `[{"text": {"$repeat": "é", "times": 2}, "tool_calls": [{"id": "c1", "name": "t", "raw_args": {"$repeat": "{", "times": 1}}]}]`,
			[]fcp.ModelResponse{{Text: "éé", ToolCalls: []fcp.ModelCall{{ID: "c1", Name: "t", RawArgs: func() *string { s := "{"; return &s }()}}}}},
		{"none: unchanged", `[{"text": "done"}]`, []fcp.ModelResponse{{Text: "done"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := corpus.Load(turnFile(tt.model))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var got []fcp.ModelResponse
			if err := json.Unmarshal(c.Cases[0].Turn.Model, &got); err != nil {
				t.Fatalf("the expanded script %s does not decode: %v", c.Cases[0].Turn.Model, err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("expanded script differs (-want +got):\n%s", d)
			}
		})
	}
}

func TestRepeatLarge(t *testing.T) {
	c, err := corpus.Load(turnFile(`[{"tool_calls": [{"id": "c1", "name": "t", "args": {"r": {"$repeat": "x", "times": 300000}}}]}]`))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if n := len(c.Cases[0].Turn.Model); n < 300000 || n > 300100 {
		t.Errorf("expanded script is %d bytes, want 300000 and the call around them", n)
	}
}

func TestRepeatUnchangedScriptKeepsItsBytes(t *testing.T) {
	model := `[{"tool_calls": [{"id": "c1", "name": "t", "args": {"b": 1, "a": "x"}}]}]`
	c, err := corpus.Load(turnFile(model))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := string(c.Cases[0].Turn.Model); got != model {
		t.Errorf("a script without $repeat changed: got %s, want %s", got, model)
	}
}

// Errors name the file, the case and the place; in args (which the schema
// leaves open) the loader's own check speaks, with or without the schema.
func TestRepeatErrors(t *testing.T) {
	call := func(v string) string {
		return `[{"tool_calls": [{"id": "c1", "name": "t", "args": {"r": ` + v + `}}]}]`
	}
	tests := []struct {
		name, model string
		want        []string
	}{
		{"times zero", call(`{"$repeat": "x", "times": 0}`), []string{`case "t"`, "turn.model[0].tool_calls[0].args.r", `"times" is 0`, "from 1 to 10000000"}},
		{"times too many", call(`{"$repeat": "x", "times": 10000001}`), []string{`case "t"`, `"times" is 10000001`}},
		{"times not an integer", call(`{"$repeat": "x", "times": 2.5}`), []string{`case "t"`, `"times" is 2.5`}},
		{"times missing", call(`{"$repeat": "x"}`), []string{`case "t"`, `needs "times"`}},
		{"times a string", call(`{"$repeat": "x", "times": "3"}`), []string{`case "t"`, `needs "times"`}},
		{"empty text", call(`{"$repeat": "", "times": 3}`), []string{`case "t"`, `"$repeat" must be a non-empty string`}},
		{"text not a string", call(`{"$repeat": 7, "times": 3}`), []string{`case "t"`, `"$repeat" must be a non-empty string`}},
		{"extra key", call(`{"$repeat": "x", "times": 3, "sep": ","}`), []string{`case "t"`, `has no key "sep"`}},
		{"too many bytes", call(`{"$repeat": "0123456789", "times": 10000000}`), []string{`case "t"`, "100000000 bytes"}},
		{"in a recover step", `[{"text": "a"}], "recover": [{"model": [{"text": "b"}]}, {"model": [{"text": {"$repeat": "x", "times": -1}}]}]`,
			[]string{`case "t"`, "turn.recover[1].model[0].text", `"times" is -1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := corpus.LoadTrusted(turnFile(tt.model))
			if err == nil {
				t.Fatalf("LoadTrusted succeeded with %d cases, want an error mentioning %q", len(c.Cases), tt.want)
			}
			for _, w := range append(tt.want, "tool_executor/a.json") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
			if _, err := corpus.Load(turnFile(tt.model)); err == nil {
				t.Errorf("Load (with the schema) accepted what LoadTrusted refuses")
			}
		})
	}
}

// The schema states the form where it types the script's strings.
func TestRepeatSchema(t *testing.T) {
	tests := []struct{ name, model, want string }{
		{"text", `[{"text": {"$repeat": "x", "times": 0}}]`, "at /cases/0/turn/model/0/text"},
		{"raw_args", `[{"tool_calls": [{"id": "c", "name": "t", "raw_args": {"$repeat": "", "times": 1}}]}]`, "at /cases/0/turn/model/0/tool_calls/0/raw_args"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := corpus.Load(turnFile(tt.model))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want a schema error %s", err, tt.want)
			}
		})
	}
}
