package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// fakeTool is a Tool whose behaviour the test chooses.
type fakeTool struct {
	name   string
	schema string
	run    func(args json.RawMessage) (string, error)
	calls  *int
}

func (f fakeTool) Name() string            { return f.name }
func (f fakeTool) Description() string     { return "fake " + f.name }
func (f fakeTool) Schema() json.RawMessage { return json.RawMessage(f.schema) }
func (f fakeTool) SideEffecting() bool     { return f.name == "writer" }
func (f fakeTool) RequiresApproval() bool  { return false }
func (f fakeTool) RiskLevel() tool.RiskLevel {
	if f.SideEffecting() {
		return tool.Medium
	}
	return tool.Low
}
func (f fakeTool) ApprovalSummary(json.RawMessage, config.Config) (string, error) { return f.name, nil }
func (f fakeTool) Execute(_ context.Context, args json.RawMessage, _ *tool.Ctx) (string, error) {
	if f.calls != nil {
		*f.calls++
	}
	if f.run == nil {
		return "ran " + string(args), nil
	}
	return f.run(args)
}

const pathSchema = `{"type":"object","properties":{"path":{"type":"string","minLength":1},"depth":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`

func newFake(name string) fakeTool { return fakeTool{name: name, schema: pathSchema} }

func toolErr(t *testing.T, err error) *toolerr.Error {
	t.Helper()
	var te *toolerr.Error
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T) is not a *toolerr.Error", err, err)
	}
	return te
}

func TestNewRegistry(t *testing.T) {
	_, err := tool.NewRegistry(newFake("a"), newFake("b"), newFake("a"))
	if te := toolErr(t, err); te.Kind != toolerr.DuplicateTool || te.Tool != "a" {
		t.Errorf("duplicate: got %#v, want DuplicateTool for a", te)
	}

	_, err = tool.NewRegistry(fakeTool{name: "bad", schema: `{"type":"nonsense"}`})
	if err == nil || !strings.Contains(err.Error(), `tool "bad"`) {
		t.Errorf("bad schema: got %v, want an error naming the tool", err)
	}
	_, err = tool.NewRegistry(fakeTool{name: "notjson", schema: `{`})
	if err == nil || !strings.Contains(err.Error(), `tool "notjson"`) {
		t.Errorf("schema not JSON: got %v, want an error naming the tool", err)
	}
	_, err = tool.NewRegistry(fakeTool{name: "remote", schema: `{"$ref":"https://example.com/s.json"}`})
	if err == nil || !strings.Contains(err.Error(), "self-contained") {
		t.Errorf("remote $ref: got %v, want a self-contained error", err)
	}
	_, err = tool.NewRegistry(fakeTool{schema: `{}`})
	if err == nil {
		t.Error("empty name: want an error")
	}
}

func TestNamesAndDefinitionsSorted(t *testing.T) {
	r, err := tool.NewRegistry(newFake("zeta"), newFake("writer"), newFake("alpha"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha", "writer", "zeta"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	r.Names()[0] = "mutated"
	if got := r.Names(); got[0] != "alpha" {
		t.Error("Names() shares its slice with the registry")
	}
	defs := r.Definitions()
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("Definitions() names = %v, want %v", names, want)
	}
	w := defs[1]
	if !w.SideEffecting || w.RiskLevel != "Medium" || w.Description != "fake writer" || string(w.Parameters) != pathSchema {
		t.Errorf("writer definition = %+v", w)
	}
	if defs[0].RiskLevel != "Low" || defs[0].SideEffecting {
		t.Errorf("alpha definition = %+v", defs[0])
	}
}

func TestLookup(t *testing.T) {
	r, err := tool.NewRegistry(newFake("a"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.Lookup("a"); err != nil || got.Name() != "a" {
		t.Errorf("Lookup(a) = %v, %v", got, err)
	}
	_, err = r.Lookup("nope")
	if te := toolErr(t, err); te.Kind != toolerr.UnknownTool || te.Tool != "nope" || !strings.Contains(te.Message, `"nope"`) {
		t.Errorf("Lookup(nope) = %#v", te)
	}
}

func TestValidate(t *testing.T) {
	r, err := tool.NewRegistry(newFake("ls"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		kind       toolerr.Kind // "" = valid
		msg        string       // substring of the message
	}{
		{"ls", `{"path":"."}`, "", ""},
		{"ls", ` {"path":".","depth":2} `, "", ""},
		{"ls", `{"path":".","depth":2.0}`, "", ""},
		{"nope", `{}`, toolerr.UnknownTool, `"nope"`},
		{"ls", ``, toolerr.BadArgs, "missing"},
		{"ls", `null`, toolerr.BadArgs, "must be a JSON object, got null"},
		{"ls", `[]`, toolerr.BadArgs, "must be a JSON object, got an array"},
		{"ls", `"."`, toolerr.BadArgs, "got a string"},
		{"ls", `{"path":`, toolerr.BadArgs, "not valid JSON"},
		{"ls", `{"path":"."} {}`, toolerr.BadArgs, "data after the value"},
		{"ls", `{}`, toolerr.BadArgs, "missing properties: 'path'"},
		{"ls", `{"path":3}`, toolerr.BadArgs, "at /path: expected string, but got number"},
		{"ls", `{"path":""}`, toolerr.BadArgs, "at /path: length must be >= 1"},
		{"ls", `{"path":".","depth":0}`, toolerr.BadArgs, "at /depth: must be >= 1"},
		{"ls", `{"path":".","depth":1.5}`, toolerr.BadArgs, "at /depth: expected integer"},
		{"ls", `{"path":".","extra":1}`, toolerr.BadArgs, "'extra' not allowed"},
	}
	for _, tt := range tests {
		err := r.Validate(tt.name, json.RawMessage(tt.args))
		if tt.kind == "" {
			if err != nil {
				t.Errorf("Validate(%s, %s) = %v, want nil", tt.name, tt.args, err)
			}
			continue
		}
		te := toolErr(t, err)
		if te.Kind != tt.kind || !strings.Contains(te.Message, tt.msg) {
			t.Errorf("Validate(%s, %s) = %v, want %s containing %q", tt.name, tt.args, te, tt.kind, tt.msg)
		}
	}
}

func TestCall(t *testing.T) {
	calls := 0
	plain := errors.New("disk on fire")
	wrapped := toolerr.New(toolerr.PatchFailed, "hunk 1 failed")
	r, err := tool.NewRegistry(
		fakeTool{name: "ok", schema: pathSchema, calls: &calls},
		fakeTool{name: "plain", schema: pathSchema, run: func(json.RawMessage) (string, error) { return "partial", plain }},
		fakeTool{name: "typed", schema: pathSchema, run: func(json.RawMessage) (string, error) {
			return "", errors.Join(errors.New("context"), wrapped)
		}},
		fakeTool{name: "panics", schema: pathSchema, run: func(json.RawMessage) (string, error) {
			panic("boom\x1b[31m" + strings.Repeat("x", 500))
		}},
		fakeTool{name: "nilpanic", schema: pathSchema, run: func(json.RawMessage) (string, error) {
			var m map[string]int
			m["x"] = 1
			return "", nil
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := &tool.Ctx{AllowTruncation: true}

	out, err := r.Call(ctx, "ok", json.RawMessage(`{"path":"."}`), c)
	if err != nil || out != `ran {"path":"."}` || calls != 1 {
		t.Errorf("ok: %q, %v, calls=%d", out, err, calls)
	}
	// FR-VAL-01: schema-invalid arguments never reach Execute.
	_, err = r.Call(ctx, "ok", json.RawMessage(`{}`), c)
	if te := toolErr(t, err); te.Kind != toolerr.BadArgs || calls != 1 {
		t.Errorf("bad args: %v, calls=%d", te, calls)
	}
	_, err = r.Call(ctx, "missing", json.RawMessage(`{}`), c)
	if te := toolErr(t, err); te.Kind != toolerr.UnknownTool {
		t.Errorf("unknown: %v", te)
	}

	out, err = r.Call(ctx, "plain", json.RawMessage(`{"path":"."}`), c)
	if te := toolErr(t, err); te.Kind != toolerr.ExecutionFailed || te.Tool != "plain" || te.Message != "disk on fire" || out != "" {
		t.Errorf("plain error: %q %#v", out, te)
	}
	_, err = r.Call(ctx, "typed", json.RawMessage(`{"path":"."}`), c)
	if te := toolErr(t, err); te != wrapped {
		t.Errorf("typed error: got %#v, want the tool's own *toolerr.Error", te)
	}

	_, err = r.Call(ctx, "panics", json.RawMessage(`{"path":"."}`), c)
	te := toolErr(t, err)
	if te.Kind != toolerr.ExecutionFailed || !strings.HasPrefix(te.Message, "Tool panicked: boom?[31m") {
		t.Errorf("panic: %#v", te)
	}
	if len(te.Message) > 250 || strings.ContainsRune(te.Message, 0x1b) {
		t.Errorf("panic message not sanitized: %q", te.Message)
	}
	_, err = r.Call(ctx, "nilpanic", json.RawMessage(`{"path":"."}`), c)
	if te := toolErr(t, err); te.Kind != toolerr.ExecutionFailed || !strings.Contains(te.Message, "nil map") {
		t.Errorf("runtime panic: %#v", te)
	}
}
