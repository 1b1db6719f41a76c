package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Registry maps tool names to tools (FR-REG-03). Each tool's argument
// schema is compiled once (NFR-PERF-03): when the registry is built
// (NewRegistry), or on the tool's first validation (NewLazyRegistry). A
// Registry is immutable and safe for concurrent use.
type Registry struct {
	tools map[string]*entry
	names []string // sorted
}

type entry struct {
	tool    Tool
	compile func() (*jsonschema.Schema, error) // once, cached
}

// schemaBase prefixes a tool's name to give its schema a URL. It does not
// resolve: schemas are compiled from memory and never load other documents.
const schemaBase = "https://forge-conform.invalid/tools/"

// NewRegistry registers tools in order. A second tool with a name already
// registered fails with a DuplicateTool *toolerr.Error; a tool whose schema
// does not compile as JSON Schema Draft 2020-12 (FR-VAL-01a) fails with an
// error naming the tool.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r, err := NewLazyRegistry(tools...)
	if err != nil {
		return nil, err
	}
	for _, name := range r.names {
		if _, err := r.tools[name].compile(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// NewLazyRegistry is NewRegistry for a process that must start fast (the
// reference served over FCP/1 answers hello before any schema is needed):
// each schema is compiled on its tool's first validation, once. Names are
// checked at once; a schema that does not compile fails every validation
// of its tool with the error NewRegistry would return, as an
// ExecutionFailed *toolerr.Error. Use it for tools whose schemas a test
// already compiles with NewRegistry.
func NewLazyRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{tools: make(map[string]*entry, len(tools))}
	for _, t := range tools {
		name := t.Name()
		if name == "" {
			return nil, fmt.Errorf("tool: a %T has an empty name; every tool needs a unique name", t)
		}
		if _, dup := r.tools[name]; dup {
			return nil, &toolerr.Error{Kind: toolerr.DuplicateTool, Tool: name,
				Message: fmt.Sprintf("tool %q is registered twice; register each tool once", name)}
		}
		schema := t.Schema()
		r.tools[name] = &entry{tool: t, compile: sync.OnceValues(func() (*jsonschema.Schema, error) {
			return compileSchema(name, schema)
		})}
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	return r, nil
}

func compileSchema(name string, schema json.RawMessage) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema refers to %s; tool schemas must be self-contained", u)
	}
	u := schemaBase + url.PathEscape(name) + ".json"
	if err := c.AddResource(u, bytes.NewReader(schema)); err != nil {
		return nil, fmt.Errorf("tool %q: schema is not valid JSON: %v", name, err)
	}
	s, err := c.Compile(u)
	if err != nil {
		return nil, fmt.Errorf("tool %q: schema does not compile as JSON Schema Draft 2020-12: %v", name, err)
	}
	return s, nil
}

// Lookup returns the tool registered under name, or an UnknownTool
// *toolerr.Error.
func (r *Registry) Lookup(name string) (Tool, error) {
	e, ok := r.tools[name]
	if !ok {
		return nil, r.unknown(name)
	}
	return e.tool, nil
}

func (r *Registry) unknown(name string) *toolerr.Error {
	return &toolerr.Error{Kind: toolerr.UnknownTool, Tool: name,
		Message: fmt.Sprintf("unknown tool %q (registered: %s)", name, strings.Join(r.names, ", "))}
}

// Names returns the registered tool names, sorted.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Definitions returns one definition per tool, sorted by name
// (FR-REG-03, NFR-MAIN-03).
func (r *Registry) Definitions() []fcp.Definition {
	defs := make([]fcp.Definition, 0, len(r.names))
	for _, name := range r.names {
		t := r.tools[name].tool
		defs = append(defs, fcp.Definition{
			Name:             name,
			Description:      t.Description(),
			Parameters:       slices.Clone(t.Schema()),
			SideEffecting:    t.SideEffecting(),
			RequiresApproval: t.RequiresApproval(),
			RiskLevel:        string(t.RiskLevel()),
		})
	}
	return defs
}

// Validate checks args against the schema of the tool name (FR-VAL-01).
// Arguments must be one JSON object. It returns UnknownTool or BadArgs as a
// *toolerr.Error.
func (r *Registry) Validate(name string, args json.RawMessage) error {
	e, ok := r.tools[name]
	if !ok {
		return r.unknown(name)
	}
	return e.validate(name, args)
}

func (e *entry) validate(name string, args json.RawMessage) error {
	doc, err := fcp.DecodeJSON(bytes.TrimSpace(args))
	if err != nil {
		if len(bytes.TrimSpace(args)) == 0 {
			return toolerr.New(toolerr.BadArgs, "arguments of %s are missing; send a JSON object", name)
		}
		return toolerr.New(toolerr.BadArgs, "arguments of %s are %v", name, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return toolerr.New(toolerr.BadArgs, "arguments of %s must be a JSON object, got %s", name, jsonType(doc))
	}
	schema, err := e.compile()
	if err != nil {
		return toolerr.New(toolerr.ExecutionFailed, "%v", err)
	}
	if err := schema.Validate(doc); err != nil {
		return toolerr.New(toolerr.BadArgs, "invalid arguments for %s: %s", name, fcpschema.DescribeError(err))
	}
	return nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// Call runs one tool call the way the executor does: look the tool up,
// validate args, then Execute under the call's time limit (FR-EXE-03): the
// tool's own Timeout(c.Config) when it implements Timeouter, else
// [tools.timeouts] default_seconds (ctx.default_timeout, default 30 s).
//
// Any error is a *toolerr.Error: a tool returning another error type is
// wrapped as ExecutionFailed, and a panic inside Execute is recovered as
// ExecutionFailed "Tool panicked: ..." (FR-EXE-04b). A call whose limit
// passes before it fails is Timeout ("<tool> timed out after Xs"); a call
// whose ctx is cancelled (or ends) before it fails is Cancelled (FR-EXE-04),
// and a ctx already done runs nothing. Tools observe the limit through the
// ctx given to Execute. As with a Rust future under tokio's timeout, a call
// that completes successfully keeps its result even if it finished late:
// its effects happened.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage, c *Ctx) (string, error) {
	e, ok := r.tools[name]
	if !ok {
		return "", r.unknown(name)
	}
	if err := e.validate(name, args); err != nil {
		return "", err
	}
	if ctx.Err() != nil {
		return "", cancelled()
	}
	var cfg config.Config
	if c != nil {
		cfg = c.Config
	}
	limit := DefaultTimeout(cfg)
	if t, ok := e.tool.(Timeouter); ok {
		limit = t.Timeout(cfg)
	}
	errTimedOut := &toolerr.Error{Kind: toolerr.Timeout, Tool: name,
		Message: fmt.Sprintf("%s timed out after %s", name, formatSeconds(limit))}
	callCtx, cancel := context.WithTimeoutCause(ctx, limit, errTimedOut)
	defer cancel()
	out, err := execute(callCtx, e.tool, args, c)
	if err != nil && callCtx.Err() != nil {
		if context.Cause(callCtx) == error(errTimedOut) {
			return "", errTimedOut
		}
		return "", cancelled()
	}
	if err != nil {
		var te *toolerr.Error
		if errors.As(err, &te) {
			return "", te
		}
		return "", &toolerr.Error{Kind: toolerr.ExecutionFailed, Tool: name, Message: err.Error()}
	}
	return out, nil
}

// cancelled is the result of a call the caller cancelled (FR-EXE-04).
// The variant has no fields, so the tool is not named.
func cancelled() *toolerr.Error {
	return &toolerr.Error{Kind: toolerr.Cancelled, Message: "Cancelled by user"}
}

func execute(ctx context.Context, t Tool, args json.RawMessage, c *Ctx) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out = ""
			err = &toolerr.Error{Kind: toolerr.ExecutionFailed, Tool: t.Name(),
				Message: "Tool panicked: " + sanitizePanic(p)}
		}
	}()
	return t.Execute(ctx, args, c)
}

// sanitizePanic renders a panic payload for a message (FR-EXE-04b-3):
// printable characters only, at most 200 of them.
func sanitizePanic(p any) string {
	const max = 200
	s := fmt.Sprint(p)
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("...")
			break
		}
		if !unicode.IsPrint(r) {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
