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
//	    "primary": "FR-LD-LST-01",          // optional; default the first ID
//	    "interpretations": ["I-LD-03"],     // optional
//	    "doc": "what the SRD demands here", // optional
//	    "op": "call",                       // or "definitions", "summary" (default call)
//	    "args": {"path": "."},              // "$ROOT"/"$OUTSIDE" expand in strings
//	    "config": {"tools": {...}},         // optional, FCP config object
//	    "ctx": {"max_output_bytes": 512},   // optional
//	    "requires": ["unprivileged"],       // optional: "unprivileged", "faults", "old_backend_binaries"
//	    "before": [                         // optional, same conversation, in order
//	      {"call": {"tool": "read_file", "args": {"path": "a.txt"}}},
//	      {"write": {"path": "a.txt", "content": "changed behind the tool's back\n"}},
//	      {"reset": true}                   // a fresh conversation (FCP/1 reset)
//	    ],
//	    "policy": {"lp1_missing_file": "create"}, // optional: runs only where hello declares it
//	    "since": "1.2",                     // optional: the SRD version that first requires it
//	    "quiet_after_abort": {"after_ms": 2000, "within_ms": 1500, "max_ops": 3}, // optional (Quiet)
//	    "expect": {                         // exactly one of json, text, contains, error, any_of, success,
//	      "json": {...},                    //   sanitized, definitions_sorted; tree optional
//	      "text": "...",                    // exact content ("$PATH(a.txt)": any spelling of a path, below)
//	      "contains": ["created", "5"],     // success whose content holds each word (any case)
//	      "sanitized": "a\u0000b",          // content equal once sanitized: controls removed or neutralized
//	      "error": {"kind": "BadArgs", "message_contains": ["..."], "message": "...",
//	                "denial": {"reason": "...", "pattern": "..."},
//	                "advice": {"message_contains": ["line 3:"], "why": "..."}},
//	      "tree": {"a.txt": {"content": "new\n"}, "b.txt": {"absent": true}},
//	      "any_of": [{...}, {...}],         // every reading the SRD allows; one must hold
//	      "success": true,                  // a successful result, content not fixed by the SRD
//	      "definitions_sorted": true,       // a definitions response sorted by name (NFR-MAIN-03)
//	      "advice": {"text": "...", "why": "..."}, // what the SRD's guidance suggests: a warning
//	    }                                   // tree: listed paths as given, all else unchanged
//	  }]
//	}
//
// The expectation forms follow the rule of spec/INTERPRETATIONS.md: exact
// (json, text, error.message) only where the SRD fixes the bytes; words
// (message_contains, contains) only words a seed document names; any_of
// where the SRD allows several readings; a policy where it leaves the
// behaviour to the implementation. advice checks what helps users without
// being required: a failed advice check is a warning, never a failure
// (unless the run is --strict).
//
// A text or contains expectation may name a path with a placeholder,
// "$PATH(a.txt)" (PathOpen): where the SRD fixes a line form but not how
// the path in it is spelled ("modified: <path>"), the placeholder matches
// the path as written, relative to the working directory (cleaned), or
// absolute (joined to the root, or canonical with symlinks resolved), the
// root spelled $ROOT as in every normalized response:
//
//	"text": "modified: $PATH(a.txt)\ncreated: $PATH(sub/../new.txt)"
//
// For op "definitions" the matched JSON is an object keyed by tool name
// whose values are the definitions (description, parameters, ...).
//
// Partial JSON matching: an object matches when every key it lists matches
// (other keys are ignored); an array matches when it has the same length and
// every element matches; other values must be equal.
//
// An object whose only key is "$array" states an array by what the SRD
// demands of it instead of copying it; every property is optional, at
// least one is given, and the array matches when all hold:
//
//	"entries": {"$array": {
//	  "length": 200,                        // exactly 200 elements
//	  "each": {"depth": 1, "type": "file"}, // every element matches
//	  "at": {"0": {"path": "f0000.txt"},    // the element at an index matches;
//	         "-1": {"path": "f0199.txt"}},  // negative indexes count from the end
//	  "subsequence": [{"path": "a"}, {"path": "a/b"}] // elements matching these,
//	}}                                      // in this order (others may come between)
//
// An object whose only key is "$any" lists the readings the SRD allows for
// one value; the value matches when it matches one of them (at least two):
//
//	"before": {"$any": [[], ["l1"]]}        // no context line, or the one there is
//
// In a turn case's model scripts (turn.model, turn.recover[].model), an
// object {"$repeat": TEXT, "times": N} in place of a string stands for TEXT
// repeated N times (N from 1 to 10,000,000; RepeatKey): Load expands it, so
// a case about a size limit need not copy hundreds of kilobytes:
//
//	"args": {"result": {"$repeat": "x", "times": 300000}}
//
// A call case may bound what its implementation does once the call is
// aborted, quiet_after_abort (Quiet; FR-EXE-04, I-EXE-35): the case's
// fixture is slow (fixture directive slow, or a fault with delay=), its
// call outlives its limit, and from after_ms after the request (the limit
// and a generous settle time) for within_ms the fixture's fault layer may
// serve at most max_ops operations: an aborted tool stops working. Its
// failure names the case's primary ID.
package corpus

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
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
	// RequiresOldBackends: the implementation runs the case in processes
	// of its own whose PATH starts with a directory holding rg and ugrep
	// that report version 0.0.0 (CFG-SF-03, I-SF-24; PROTOCOL.md §1).
	RequiresOldBackends = "old_backend_binaries"
)

// Case is one conformance case, with the file's defaults applied.
type Case struct {
	Spec string `json:"-"`
	Name string `json:"name"`
	File string `json:"-"`
	// Line is the line of File where the case's object starts.
	Line int      `json:"-"`
	IDs  []string `json:"ids"`
	// Primary is the ID whose requirement the case's expectation, tree and
	// golden check; a difference there is charged to it alone, the other
	// IDs being context. Empty means the first ID (see PrimaryID).
	Primary         string          `json:"primary,omitempty"`
	Interpretations []string        `json:"interpretations,omitempty"`
	Doc             string          `json:"doc,omitempty"`
	Op              string          `json:"op,omitempty"`
	Tool            string          `json:"tool,omitempty"`
	Fixture         string          `json:"fixture,omitempty"`
	Args            json.RawMessage `json:"args,omitempty"`
	Config          json.RawMessage `json:"config,omitempty"`
	Ctx             *CtxOverride    `json:"ctx,omitempty"`
	Requires        []string        `json:"requires,omitempty"`
	// Policy selects implementation-defined behaviour: the case runs only
	// against an implementation whose hello declares every key with the
	// same value (spec/PROTOCOL.md, "policies").
	Policy map[string]string `json:"policy,omitempty"`
	// Since is the SRD version that first requires what the case checks
	// (e.g. "1.2"): an implementation whose hello states an earlier
	// version of the case's spec (srd_versions) skips it.
	Since string `json:"since,omitempty"`
	// Before are steps run in the same conversation before the call: calls
	// whose results are not checked beyond success, and changes the runner
	// makes on disk (a file edited behind the tools' back).
	Before []Step `json:"before,omitempty"`
	// Turn is what an op "turn" case plays (see TurnSpec).
	Turn *TurnSpec `json:"turn,omitempty"`
	// Scaling makes the case a check of complexity (see Scaling).
	Scaling *Scaling `json:"scaling,omitempty"`
	// Process is what the runner observes of the implementation's
	// process during the case (see ProcessSpec).
	Process *ProcessSpec `json:"process,omitempty"`
	// QuietAfterAbort bounds the filesystem operations after the call's
	// result (see Quiet).
	QuietAfterAbort *Quiet `json:"quiet_after_abort,omitempty"`
	Expect          Expect `json:"expect"`
}

// Step is one "before" step: exactly one of Call, Write, Remove, Symlink,
// Reset.
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
	// Reset starts a fresh conversation (FCP/1 reset, spec/PROTOCOL.md
	// §3.4): what the steps before it did to conversation state (a
	// read_file's record) is forgotten; the files stay as they are.
	Reset bool `json:"reset,omitempty"`
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
	if c.Expect.HasTree() || mutating[c.Tool] || c.Op == OpTurn {
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
// the checked call, or a reset of it).
func (c *Case) Stateful() bool {
	for _, s := range c.Before {
		if s.Call != nil || s.Reset {
			return true
		}
	}
	return false
}

// Resets reports whether a before step starts a fresh conversation.
func (c *Case) Resets() bool {
	for _, s := range c.Before {
		if s.Reset {
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

// PrimaryID is the ID the case's own checks (expectation, tree, golden)
// are charged to: Primary, or else the first ID.
func (c *Case) PrimaryID() string {
	if c.Primary != "" {
		return c.Primary
	}
	if len(c.IDs) == 0 {
		return ""
	}
	return c.IDs[0]
}

// Durable reports whether c is a durability case (turn.recover steps,
// spec/PROTOCOL.md §10): it crashes the implementation's process and
// recovers in fresh ones. Durability cases have no golden file: the
// goldens are recorded in-process, where no process can crash, and the
// case's hand-written expectation is the whole check.
func (c *Case) Durable() bool { return c.Turn != nil && len(c.Turn.Recover) > 0 }

// Golden reports whether c has a golden file: every case but the
// durability cases (see Durable), the scaling cases (see Scaling) and
// the cases that observe the process (see Observed).
func (c *Case) Golden() bool { return !c.NeedsProcess() }

// FullName is "<spec>/<name>", the name reports and globs use.
func (c *Case) FullName() string { return c.Spec + "/" + c.Name }

// CtxOverride sets the budget fields of the call's ctx.
type CtxOverride struct {
	MaxOutputBytes         *int64 `json:"max_output_bytes,omitempty"`
	AvailableCapacityBytes *int64 `json:"available_capacity_bytes,omitempty"`
}

// Expect is the hand-written expectation: exactly one of JSON, Text,
// Contains, Error, AnyOf and Success, and optionally Tree and Advice.
type Expect struct {
	JSON json.RawMessage `json:"json,omitempty"`
	Text *string         `json:"text,omitempty"`
	// Sanitized: a successful result equal to this text once sanitized
	// (FR-OUT-02): each run of control characters in it (C0 but newline,
	// tab and carriage return; DEL; C1) may be removed or replaced by
	// printable text, and the result holds none. A case that accepts the
	// file's raw bytes too lists both in any_of.
	Sanitized *string `json:"sanitized,omitempty"`
	// Contains: a successful result whose content holds every word
	// (case-insensitive), for outputs the SRD fixes only in part.
	Contains []string     `json:"contains,omitempty"`
	Error    *ExpectError `json:"error,omitempty"`
	// AnyOf lists the readings the SRD allows, each a whole expectation
	// (with its own tree); the case passes when one of them holds.
	AnyOf []Expect `json:"any_of,omitempty"`
	// Turn is the expectation over a turn case's events, results and
	// history.
	Turn *TurnExpect `json:"turn,omitempty"`
	// Success: a successful result whose content the SRD does not fix
	// (for example an approval summary, which the SRD only guides).
	Success bool `json:"success,omitempty"`
	// DefinitionsSorted: a definitions response whose definitions are in
	// ascending (byte) order of name (NFR-MAIN-03); of the spec's own
	// tools, the ones the checks see.
	DefinitionsSorted bool `json:"definitions_sorted,omitempty"`
	// Advice is what a successful result should look like where the SRD
	// gives guidance, not a requirement: a difference is a warning.
	Advice *TextAdvice `json:"advice,omitempty"`
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

// ExpectError is an expected ToolError. An empty Kind accepts any kind:
// the case then requires an error, and the SRD names no kind for its
// condition (the reference's kind may stand in Advice.Kind).
type ExpectError struct {
	Kind string `json:"kind,omitempty"`
	// NotKinds are kinds the error must not have, for a case whose kind
	// the SRD leaves open but whose condition the text rules some kinds
	// out for (a path inside the sandbox is no SandboxViolation).
	NotKinds        []string      `json:"not_kinds,omitempty"`
	Message         *string       `json:"message,omitempty"`
	MessageContains []string      `json:"message_contains,omitempty"`
	Denial          *ExpectDenial `json:"denial,omitempty"`
	// Advice are checks of what helps users but no SRD requires; failing
	// one is a warning.
	Advice *Advice `json:"advice,omitempty"`
}

// TextAdvice is an advice check on a successful result: its content (an
// approval summary for op summary) should be Text, or, for a JSON result,
// should match JSON as a json expectation does (only the listed fields
// are compared). Exactly one of Text and JSON is set. The JSON form holds
// the reference's exact reading where the SRD allows others: the case's
// own expectation keeps what the SRD requires (a failure), the advice the
// rest (a warning).
type TextAdvice struct {
	Text string          `json:"text,omitempty"`
	JSON json.RawMessage `json:"json,omitempty"`
	// Why says where the guidance comes from (shown with the warning).
	Why string `json:"why,omitempty"`
}

// Advice is an advice check on an error: words of its message, and the
// kind the reference gives where the SRD names none.
type Advice struct {
	MessageContains []string `json:"message_contains,omitempty"`
	Kind            string   `json:"kind,omitempty"`
	// Why says why it helps (shown with the warning).
	Why string `json:"why,omitempty"`
}

// HasTree reports whether the expectation, or one of its alternatives,
// states the tree after the call (so the runner must snapshot it).
func (e *Expect) HasTree() bool {
	if e.Tree != nil {
		return true
	}
	for i := range e.AnyOf {
		if e.AnyOf[i].HasTree() {
			return true
		}
	}
	return false
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
	return load(fsys, sch)
}

// LoadTrusted is Load without the JSON Schema validation (most of Load's
// time): for a corpus embedded at build time, which the tests load with
// Load (TestLoadTrusted), so that a command that starts often does not
// validate it again on every start.
func LoadTrusted(fsys fs.FS) (*Corpus, error) {
	return load(fsys, nil)
}

// load reads the corpus, validating each file with sch unless it is nil.
func load(fsys fs.FS, sch *jsonschema.Schema) (*Corpus, error) {
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
	if sch != nil {
		var raw any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: not valid JSON: %w", name, err)
		}
		if err := sch.Validate(raw); err != nil {
			return nil, fmt.Errorf("%s: does not match the case format (conformance/corpus/case.schema.json): %s", name, schemaMessage(err))
		}
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
	lines := caseLines(data)
	var out []*Case
	for i := range f.Cases {
		k := f.Cases[i]
		k.Spec, k.File = f.Spec, name
		if i < len(lines) {
			k.Line = lines[i]
		}
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
			for _, set := range []bool{st.Call != nil, st.Write != nil, st.Remove != "", st.Symlink != nil, st.Reset} {
				if set {
					n++
				}
			}
			if n != 1 {
				return nil, fmt.Errorf("%s: case %q before[%d] must have exactly one of call, write, remove, symlink, reset", name, k.Name, i)
			}
		}
		if k.Primary != "" && !slices.Contains(k.IDs, k.Primary) {
			return nil, fmt.Errorf("%s: case %q has primary %s, which is not one of its ids %v: add it to ids or fix primary", name, k.Name, k.Primary, k.IDs)
		}
		if (k.Op == "call" || k.Op == "summary") && len(k.Args) == 0 {
			return nil, fmt.Errorf("%s: case %q has no \"args\": a call case needs the tool arguments", name, k.Name)
		}
		if k.Op == OpTurn {
			if k.Turn == nil || k.Expect.Turn == nil {
				return nil, fmt.Errorf("%s: case %q is op turn: it needs \"turn\" (user, model) and \"expect\".\"turn\"", name, k.Name)
			}
			if k.Tool == "" {
				k.Tool = OpTurn
			}
			if err := k.Turn.expandRepeats(); err != nil {
				return nil, fmt.Errorf("%s: case %q: %w", name, k.Name, err)
			}
			if err := k.Turn.checkBenign(); err != nil {
				return nil, fmt.Errorf("%s: case %q: %w", name, k.Name, err)
			}
		}
		if k.Tool == "" {
			return nil, fmt.Errorf("%s: case %q names no tool: set \"tool\" on the case or in \"defaults\"", name, k.Name)
		}
		if k.QuietAfterAbort != nil {
			if err := k.QuietAfterAbort.check(&k); err != nil {
				return nil, fmt.Errorf("%s: case %q: %w", name, k.Name, err)
			}
		}
		if k.Scaling != nil {
			if err := k.Scaling.check(&k); err != nil {
				return nil, fmt.Errorf("%s: case %q: %w", name, k.Name, err)
			}
		}
		out = append(out, &k)
	}
	return out, nil
}

// caseLines returns the line on which each element of the top-level
// "cases" array starts, in order (nil if the file cannot be scanned; the
// strict decode reports why).
func caseLines(data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "cases" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil
		}
		var out []int
		for dec.More() {
			off := int(dec.InputOffset())
			for off < len(data) && data[off] != '{' {
				off++
			}
			out = append(out, 1+bytes.Count(data[:off], []byte("\n")))
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
		}
		return out
	}
	return nil
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

// Find returns the case with the given full name.
func (c *Corpus) Find(fullName string) *Case {
	for _, k := range c.Cases {
		if k.FullName() == fullName {
			return k
		}
	}
	return nil
}
