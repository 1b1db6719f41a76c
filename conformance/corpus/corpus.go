// Package corpus loads the conformance case corpus: data files, one per
// topic, each holding cases for one specification. A case names its
// fixture, the tool call, the requirement IDs it covers, the interpretations
// it relies on, and the expectation written by hand from the SRD text.
// Adding a case needs no Go code.
//
// A case file is a JSON object validated against case.schema.json:
//
//	{
//	  "spec": "list_directory",             // catalog the IDs belong to
//	  "defaults": {"tool": "list_directory", "fixture": "basic"},
//	  "cases": [{
//	    "name": "default-args",             // unique within the spec
//	    "ids": ["T-LD-01", "FR-LD-LST-01"],
//	    "interpretations": ["I-LD-03"],     // optional
//	    "doc": "what the SRD demands here", // optional
//	    "op": "call",                       // or "definitions", "summary" (default call)
//	    "args": {"path": "."},              // "$ROOT"/"$OUTSIDE" expand in strings
//	    "config": {"tools": {...}},         // optional, FCP config object
//	    "ctx": {"max_output_bytes": 512},   // optional
//	    "requires": ["unprivileged"],       // optional: "unprivileged", "faults"
//	    "before": [                         // optional, same conversation, in order
//	      {"call": {"tool": "read_file", "args": {"path": "a.txt"}}},
//	      {"write": {"path": "a.txt", "content": "changed behind the tool's back\n"}}
//	    ],
//	    "expect": {                         // exactly one of json, text, error; tree optional
//	      "json": {...},                    // partial match of the parsed content
//	      "text": "...",                    // exact content
//	      "error": {"kind": "BadArgs", "message_contains": ["..."], "message": "...",
//	                "denial": {"reason": "...", "pattern": "..."}},
//	      "tree": {"a.txt": {"content": "new\n"}, "b.txt": {"absent": true}}
//	    }                                   // tree: listed paths as given, all else unchanged
//	  }]
//	}
//
// For op "definitions" the matched JSON is an object keyed by tool name
// whose values are the definitions (description, parameters, ...).
//
// Partial JSON matching: an object matches when every key it lists matches
// (other keys are ignored); an array matches when it has the same length and
// every element matches; other values must be equal.
package corpus

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

//go:embed case.schema.json
var caseSchema string

// Requirement names a capability a case needs from the run.
const (
	// RequiresUnprivileged: the fixture has permission-restricted entries,
	// so the implementation must not run as root (or permissions must be
	// emulated in-process).
	RequiresUnprivileged = "unprivileged"
	// RequiresFaults: the fixture injects I/O faults, which only the
	// in-process reference can simulate.
	RequiresFaults = "faults"
)

// Case is one conformance case, with the file's defaults applied.
type Case struct {
	Spec            string          `json:"-"`
	Name            string          `json:"name"`
	File            string          `json:"-"`
	IDs             []string        `json:"ids"`
	Interpretations []string        `json:"interpretations,omitempty"`
	Doc             string          `json:"doc,omitempty"`
	Op              string          `json:"op,omitempty"`
	Tool            string          `json:"tool,omitempty"`
	Fixture         string          `json:"fixture,omitempty"`
	Args            json.RawMessage `json:"args,omitempty"`
	Config          json.RawMessage `json:"config,omitempty"`
	Ctx             *CtxOverride    `json:"ctx,omitempty"`
	Requires        []string        `json:"requires,omitempty"`
	// Before are steps run in the same conversation before the call: calls
	// whose results are not checked beyond success, and changes the runner
	// makes on disk (a file edited behind the tools' back).
	Before []Step `json:"before,omitempty"`
	Expect Expect `json:"expect"`
}

// Step is one "before" step: exactly one of Call, Write, Remove, Symlink.
type Step struct {
	// Call runs a tool in the case's conversation; it must succeed unless
	// ExpectError names the kind it must fail with.
	Call        *StepCall `json:"call,omitempty"`
	ExpectError string    `json:"expect_error,omitempty"`
	// Write replaces (or creates) a file's content on disk.
	Write *StepWrite `json:"write,omitempty"`
	// Remove deletes a file or empty directory on disk.
	Remove string `json:"remove,omitempty"`
	// Symlink replaces Path with a symlink to Target on disk.
	Symlink *StepSymlink `json:"symlink,omitempty"`
}

// StepCall is a tool call of a before step.
type StepCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// StepWrite writes Content to Path (relative to the root).
type StepWrite struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// StepSymlink makes Path a symlink to Target.
type StepSymlink struct {
	Path   string `json:"path"`
	Target string `json:"target"`
}

// Mutates reports whether the case changes its fixture (so it needs a
// fresh copy): disk steps, a tree expectation, or a mutating tool.
func (c *Case) Mutates(mutating map[string]bool) bool {
	if c.Expect.Tree != nil || mutating[c.Tool] {
		return true
	}
	for _, s := range c.Before {
		if s.Write != nil || s.Remove != "" || s.Symlink != nil || (s.Call != nil && mutating[s.Call.Tool]) {
			return true
		}
	}
	return false
}

// Stateful reports whether the case needs conversation state (calls before
// the checked call).
func (c *Case) Stateful() bool {
	for _, s := range c.Before {
		if s.Call != nil {
			return true
		}
	}
	return false
}

// Ref is a requirement ID with the catalog it belongs to.
type Ref struct{ Spec, ID string }

// ParseRef reads an ID as a case or failure names it: "ID" belongs to the
// case's own spec, "spec:ID" to another catalog (a list_directory case may
// name "tool_executor:FR-VAL-04").
func ParseRef(caseSpec, id string) Ref {
	if sp, bare, ok := strings.Cut(id, ":"); ok {
		return Ref{Spec: sp, ID: bare}
	}
	return Ref{Spec: caseSpec, ID: id}
}

// Refs resolves the case's IDs.
func (c *Case) Refs() []Ref {
	out := make([]Ref, len(c.IDs))
	for i, id := range c.IDs {
		out[i] = ParseRef(c.Spec, id)
	}
	return out
}

// FullName is "<spec>/<name>", the name reports and globs use.
func (c *Case) FullName() string { return c.Spec + "/" + c.Name }

// CtxOverride sets the budget fields of the call's ctx.
type CtxOverride struct {
	MaxOutputBytes         *int64 `json:"max_output_bytes,omitempty"`
	AvailableCapacityBytes *int64 `json:"available_capacity_bytes,omitempty"`
}

// Expect is the hand-written expectation: exactly one of JSON, Text, Error,
// and optionally Tree.
type Expect struct {
	JSON  json.RawMessage `json:"json,omitempty"`
	Text  *string         `json:"text,omitempty"`
	Error *ExpectError    `json:"error,omitempty"`
	// Tree states the fixture tree after the call: the listed paths
	// (relative to the root) with their expected state; every other entry
	// must be byte-identical to before the call. An empty object means
	// "nothing changed".
	Tree map[string]TreeEntry `json:"tree,omitempty"`
}

// TreeEntry is the expected state of one path after the call.
type TreeEntry struct {
	Absent  bool    `json:"absent,omitempty"`
	Dir     bool    `json:"dir,omitempty"` // a directory (else a regular file)
	Content *string `json:"content,omitempty"`
	Mode    string  `json:"mode,omitempty"` // octal permission bits, e.g. "0644"
}

// ExpectError is an expected ToolError.
type ExpectError struct {
	Kind            string        `json:"kind"`
	Message         *string       `json:"message,omitempty"`
	MessageContains []string      `json:"message_contains,omitempty"`
	Denial          *ExpectDenial `json:"denial,omitempty"`
}

// ExpectDenial is an expected DenialReason; empty fields are not compared.
type ExpectDenial struct {
	Reason    string `json:"reason"`
	Pattern   string `json:"pattern,omitempty"`
	Attempted string `json:"attempted,omitempty"`
	Resolved  string `json:"resolved,omitempty"`
}

// File is one case file as written.
type File struct {
	Spec     string   `json:"spec"`
	Defaults Defaults `json:"defaults"`
	Cases    []Case   `json:"cases"`
}

// Defaults are applied to every case of a file that leaves the field empty.
type Defaults struct {
	Tool    string          `json:"tool,omitempty"`
	Fixture string          `json:"fixture,omitempty"`
	Config  json.RawMessage `json:"config,omitempty"`
}

// Corpus is every case, sorted by full name.
type Corpus struct {
	Cases []*Case
}

// Load reads every */*.json file of fsys. Errors name the file and case and
// say what to fix; all of them are reported together.
func Load(fsys fs.FS) (*Corpus, error) {
	sch, err := compileSchema()
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(fsys, "*/*.json")
	if err != nil {
		return nil, err
	}
	var errs []error
	c := &Corpus{}
	seen := map[string]string{}
	for _, name := range files {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cases, err := parseFile(sch, name, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, k := range cases {
			if prev, dup := seen[k.FullName()]; dup {
				errs = append(errs, fmt.Errorf("%s: case %q is also defined in %s: case names must be unique within a spec", name, k.Name, prev))
				continue
			}
			seen[k.FullName()] = name
			c.Cases = append(c.Cases, k)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(c.Cases, func(i, j int) bool { return c.Cases[i].FullName() < c.Cases[j].FullName() })
	return c, nil
}

func compileSchema() (*jsonschema.Schema, error) {
	comp := jsonschema.NewCompiler()
	comp.Draft = jsonschema.Draft2020
	if err := comp.AddResource("case.schema.json", strings.NewReader(caseSchema)); err != nil {
		return nil, fmt.Errorf("corpus: case schema: %w", err)
	}
	return comp.Compile("case.schema.json")
}

func parseFile(sch *jsonschema.Schema, name string, data []byte) ([]*Case, error) {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %w", name, err)
	}
	if err := sch.Validate(raw); err != nil {
		return nil, fmt.Errorf("%s: does not match the case format (conformance/corpus/case.schema.json): %s", name, schemaMessage(err))
	}
	var f File
	strict := json.NewDecoder(bytes.NewReader(data))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dir := path.Dir(name)
	if f.Spec != dir {
		return nil, fmt.Errorf("%s: spec %q does not match its directory %q: move the file or fix \"spec\"", name, f.Spec, dir)
	}
	var out []*Case
	for i := range f.Cases {
		k := f.Cases[i]
		k.Spec, k.File = f.Spec, name
		if k.Tool == "" {
			k.Tool = f.Defaults.Tool
		}
		if k.Fixture == "" {
			k.Fixture = f.Defaults.Fixture
		}
		if len(k.Config) == 0 {
			k.Config = f.Defaults.Config
		}
		if k.Op == "" {
			k.Op = "call"
		}
		for i, st := range k.Before {
			n := 0
			for _, set := range []bool{st.Call != nil, st.Write != nil, st.Remove != "", st.Symlink != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				return nil, fmt.Errorf("%s: case %q before[%d] must have exactly one of call, write, remove, symlink", name, k.Name, i)
			}
		}
		if (k.Op == "call" || k.Op == "summary") && len(k.Args) == 0 {
			return nil, fmt.Errorf("%s: case %q has no \"args\": a call case needs the tool arguments", name, k.Name)
		}
		if k.Tool == "" {
			return nil, fmt.Errorf("%s: case %q names no tool: set \"tool\" on the case or in \"defaults\"", name, k.Name)
		}
		out = append(out, &k)
	}
	return out, nil
}

func schemaMessage(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := ve
		for len(leaf.Causes) > 0 {
			leaf = leaf.Causes[0]
		}
		loc := leaf.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		return fmt.Sprintf("at %s: %s", loc, leaf.Message)
	}
	return err.Error()
}

// IDs returns the sorted set of IDs the corpus covers.
func (c *Corpus) IDs() []string {
	set := map[string]bool{}
	for _, k := range c.Cases {
		for _, id := range k.IDs {
			set[id] = true
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Find returns the case with the given full name.
func (c *Corpus) Find(fullName string) *Case {
	for _, k := range c.Cases {
		if k.FullName() == fullName {
			return k
		}
	}
	return nil
}
