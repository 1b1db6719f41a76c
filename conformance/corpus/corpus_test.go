package corpus_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

func loadValid(t *testing.T) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Load(os.DirFS("testdata/valid"))
	if err != nil {
		t.Fatalf("Load(testdata/valid): %v", err)
	}
	return c
}

func int64p(n int64) *int64 { return &n }

func TestLoadValid(t *testing.T) {
	c := loadValid(t)
	var names []string
	for _, k := range c.Cases {
		names = append(names, k.FullName())
	}
	wantNames := []string{"codex_list_dir/default-args", "list_directory/default-args", "list_directory/definitions", "list_directory/own-fixture"}
	if d := cmp.Diff(wantNames, names); d != "" {
		t.Fatalf("cases (sorted by full name) differ (-want +got):\n%s", d)
	}

	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name string
		want corpus.Case
	}{
		{"list_directory/default-args", corpus.Case{
			Spec: "list_directory", Name: "default-args", File: "list_directory/basic.json", Line: 21,
			IDs: []string{"T-LD-01", "FR-LD-LST-01"}, Interpretations: []string{"I-LD-03"}, Doc: "A listing with default arguments.",
			Op: "call", Tool: "list_directory", Fixture: "basic", // op, tool and fixture from the defaults
			Args:   raw(`{"path": "."}`),
			Config: raw(`{"tools": {"list_directory": {"max_entries": 50}}}`), // config from the defaults
			Expect: corpus.Expect{JSON: raw(`{"path": ".", "entries": [{"name": "a"}]}`)},
		}},
		{"list_directory/own-fixture", corpus.Case{
			Spec: "list_directory", Name: "own-fixture", File: "list_directory/basic.json", Line: 9,
			IDs: []string{"T-LD-04"}, Op: "call", Tool: "list_directory", Fixture: "deep", // the case's own values win
			Args:     raw(`{"path": "$ROOT", "recursive": true, "max_depth": 9}`),
			Config:   raw(`{"tools": {}}`),
			Ctx:      &corpus.CtxOverride{MaxOutputBytes: int64p(512), AvailableCapacityBytes: int64p(1024)},
			Requires: []string{corpus.RequiresUnprivileged},
			Expect: corpus.Expect{Error: &corpus.ExpectError{Kind: "BadArgs", MessageContains: []string{"max_depth"},
				Denial: &corpus.ExpectDenial{Reason: "LimitsExceeded"}}},
		}},
		{"list_directory/definitions", corpus.Case{
			Spec: "list_directory", Name: "definitions", File: "list_directory/definitions.json", Line: 5,
			IDs: []string{"FR-LD-DEF-01", "T-LD-01"}, Op: "definitions", Tool: "list_directory", // no fixture default: stays empty; no args needed
			Expect: corpus.Expect{JSON: raw(`{"list_directory": {}}`)},
		}},
		{"codex_list_dir/default-args", corpus.Case{
			Spec: "codex_list_dir", Name: "default-args", File: "codex_list_dir/list-dir.json", Line: 5,
			IDs: []string{"CX-LD-FMT-01"}, Op: "call", Tool: "list_dir", Fixture: "basic",
			Args:   raw(`{"dir_path": "$ROOT"}`),
			Expect: corpus.Expect{Text: func() *string { s := "Absolute path: $ROOT"; return &s }()},
		}},
	}
	for _, tt := range tests {
		got := c.Find(tt.name)
		if got == nil {
			t.Errorf("Find(%q) = nil", tt.name)
			continue
		}
		if d := cmp.Diff(tt.want, *got); d != "" {
			t.Errorf("case %s differs (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestFindAndIDs(t *testing.T) {
	c := loadValid(t)
	for _, name := range []string{"default-args", "list_directory", "list_directory/", "list_directory/nope", "LIST_DIRECTORY/default-args"} {
		if k := c.Find(name); k != nil {
			t.Errorf("Find(%q) = %s, want nil: Find takes exact full names", name, k.FullName())
		}
	}
	if k := c.Find("codex_list_dir/default-args"); k == nil || k.Tool != "list_dir" {
		t.Errorf("Find picks the case of the right spec when short names repeat across specs, got %+v", k)
	}
}

func TestFullName(t *testing.T) {
	k := corpus.Case{Spec: "list_directory", Name: "hidden-omitted"}
	if got := k.FullName(); got != "list_directory/hidden-omitted" {
		t.Errorf("FullName() = %q", got)
	}
}

// goodFile is a valid list_directory case file; the error rows change one
// thing in it.
const goodFile = `{
  "spec": "list_directory",
  "defaults": {"tool": "list_directory", "fixture": "basic"},
  "cases": [
    {"name": "x", "ids": ["T-LD-01"], "args": {"path": "."}, "expect": {"json": {}}}
  ]
}`

func TestLoadErrors(t *testing.T) {
	mod := func(old, new string) string {
		if strings.Count(goodFile, old) != 1 {
			t.Fatalf("%q does not occur once in goodFile", old)
		}
		return strings.Replace(goodFile, old, new, 1)
	}
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{"invalid JSON", map[string]string{"list_directory/a.json": `{"spec": "list_directory",`},
			[]string{"list_directory/a.json: not valid JSON"}},
		{"trailing comma", map[string]string{"list_directory/a.json": mod(`{"json": {}}}`, `{"json": {}},}`)},
			[]string{"list_directory/a.json: not valid JSON"}},
		{"missing ids", map[string]string{"list_directory/a.json": mod(`"ids": ["T-LD-01"], `, ``)},
			[]string{"list_directory/a.json: does not match the case format (conformance/corpus/case.schema.json)", "at /cases/0", "ids"}},
		{"empty ids", map[string]string{"list_directory/a.json": mod(`["T-LD-01"]`, `[]`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/ids"}},
		{"bad ID pattern", map[string]string{"list_directory/a.json": mod(`"T-LD-01"`, `"t-ld-01"`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/ids/0"}},
		{"bad name pattern", map[string]string{"list_directory/a.json": mod(`"name": "x"`, `"name": "Bad Name"`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/name", "does not match pattern"}},
		{"bad spec pattern", map[string]string{"list_directory/a.json": mod(`"spec": "list_directory"`, `"spec": "List-Directory"`)},
			[]string{"list_directory/a.json: does not match the case format", "at /spec"}},
		{"two expectations", map[string]string{"list_directory/a.json": mod(`{"json": {}}`, `{"json": {}, "text": ""}`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/expect"}},
		{"no expectation", map[string]string{"list_directory/a.json": mod(`{"json": {}}`, `{}`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/expect"}},
		{"unknown error kind", map[string]string{"list_directory/a.json": mod(`{"json": {}}`, `{"error": {"kind": "NotFound"}}`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/expect/error/kind"}},
		{"unknown denial reason", map[string]string{"list_directory/a.json": mod(`{"json": {}}`, `{"error": {"kind": "SandboxViolation", "denial": {"reason": "Nope"}}}`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/expect/error/denial/reason"}},
		{"unknown case field", map[string]string{"list_directory/a.json": mod(`"args"`, `"argz": {}, "args"`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0", "argz"}},
		{"unknown top-level field", map[string]string{"list_directory/a.json": mod(`"spec"`, `"version": 1, "spec"`)},
			[]string{"list_directory/a.json: does not match the case format", "version"}},
		{"unknown requirement", map[string]string{"list_directory/a.json": mod(`"args"`, `"requires": ["root"], "args"`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/requires/0"}},
		{"negative ctx budget", map[string]string{"list_directory/a.json": mod(`"args"`, `"ctx": {"max_output_bytes": -1}, "args"`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/ctx/max_output_bytes"}},
		{"bad op", map[string]string{"list_directory/a.json": mod(`"args"`, `"op": "hello", "args"`)},
			[]string{"list_directory/a.json: does not match the case format", "at /cases/0/op"}},
		{"no cases", map[string]string{"list_directory/a.json": `{"spec": "list_directory", "cases": []}`},
			[]string{"list_directory/a.json: does not match the case format", "at /cases"}},
		{"duplicate case names across files", map[string]string{"list_directory/a.json": goodFile, "list_directory/b.json": goodFile},
			[]string{`list_directory/b.json: case "x" is also defined in list_directory/a.json: case names must be unique within a spec`}},
		{"duplicate case names in one file", map[string]string{"list_directory/a.json": mod(`{"json": {}}}`, `{"json": {}}}, {"name": "x", "ids": ["T-LD-02"], "args": {"path": "f"}, "expect": {"json": {}}}`)},
			[]string{`list_directory/a.json: case "x" is also defined in list_directory/a.json`}},
		{"spec does not match the directory", map[string]string{"codex_list_dir/a.json": goodFile},
			[]string{`codex_list_dir/a.json: spec "list_directory" does not match its directory "codex_list_dir": move the file or fix "spec"`}},
		{"call without args", map[string]string{"list_directory/a.json": mod(`"args": {"path": "."}, `, ``)},
			[]string{`list_directory/a.json: case "x" has no "args": a call case needs the tool arguments`}},
		{"explicit call without args", map[string]string{"list_directory/a.json": mod(`"args": {"path": "."}, `, `"op": "call", `)},
			[]string{`list_directory/a.json: case "x" has no "args"`}},
		{"no tool", map[string]string{"list_directory/a.json": mod(`"tool": "list_directory", `, ``)},
			[]string{`list_directory/a.json: case "x" names no tool: set "tool" on the case or in "defaults"`}},
		{"scaling on the same fixture", map[string]string{"list_directory/a.json": mod(`"args"`, `"scaling": {"fixture": "basic", "factor": 16, "max_ratio": 48, "expect": {"json": {}}}, "args"`)},
			[]string{`case "x": scaling.fixture names the large fixture, which differs from the case's`}},
		{"scaling limit above quadratic", map[string]string{"list_directory/a.json": mod(`"args"`, `"scaling": {"fixture": "bulk", "factor": 16, "max_ratio": 300, "expect": {"json": {}}}, "args"`)},
			[]string{`scaling.max_ratio 300: want a limit between factor (16, linear) and factor² (256, quadratic)`}},
		{"scaling limit below linear", map[string]string{"list_directory/a.json": mod(`"args"`, `"scaling": {"fixture": "bulk", "factor": 16, "max_ratio": 12, "expect": {"json": {}}}, "args"`)},
			[]string{`scaling.max_ratio 12: want a limit between factor`}},
		{"scaling factor 1", map[string]string{"list_directory/a.json": mod(`"args"`, `"scaling": {"fixture": "bulk", "factor": 1, "max_ratio": 1.5, "expect": {"json": {}}}, "args"`)},
			[]string{"does not match the case format", "at /cases/0/scaling/factor"}},
		{"scaling with before steps", map[string]string{"list_directory/a.json": mod(`"args"`, `"scaling": {"fixture": "bulk", "factor": 16, "max_ratio": 48, "expect": {"json": {}}}, "before": [{"remove": "a"}], "args"`)},
			[]string{`case "x": a scaling case has no before steps`}},
		{"before step with reset and a call", map[string]string{"list_directory/a.json": mod(`"args"`, `"before": [{"reset": true, "remove": "a"}], "args"`)},
			[]string{`case "x" before[0] must have exactly one of call, write, remove, symlink, reset`}},
		{"before step with reset false", map[string]string{"list_directory/a.json": mod(`"args"`, `"before": [{"reset": false}], "args"`)},
			[]string{"does not match the case format"}},
		{"scaling turn", map[string]string{"list_directory/a.json": mod(`"args"`, `"scaling": {"fixture": "bulk", "factor": 16, "max_ratio": 48, "expect": {"json": {}}}, "op": "definitions", "args"`)},
			[]string{`case "x": a scaling case is op call`}},
		{"quiet without a primary", map[string]string{"list_directory/a.json": mod(`"args"`, `"quiet_after_abort": {"after_ms": 2000, "within_ms": 1500, "max_ops": 3}, "args"`)},
			[]string{`case "x": quiet_after_abort needs a primary ID`}},
		{"quiet without max_ops", map[string]string{"list_directory/a.json": mod(`"args"`, `"primary": "T-LD-01", "quiet_after_abort": {"after_ms": 2000, "within_ms": 1500}, "args"`)},
			[]string{"does not match the case format", "at /cases/0/quiet_after_abort"}},
		{"quiet on definitions", map[string]string{"list_directory/a.json": mod(`"args"`, `"primary": "T-LD-01", "op": "definitions", "quiet_after_abort": {"after_ms": 2000, "within_ms": 1500, "max_ops": 3}, "args"`)},
			[]string{`case "x": quiet_after_abort observes a call`}},
		{"every bad file is reported", map[string]string{"list_directory/a.json": `{`, "list_directory/b.json": mod(`"name": "x"`, `"name": "X"`), "list_directory/c.json": goodFile},
			[]string{"list_directory/a.json: not valid JSON", "list_directory/b.json: does not match the case format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range tt.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			c, err := corpus.Load(fsys)
			if err == nil {
				t.Fatalf("Load succeeded with %d cases, want an error mentioning %q", len(c.Cases), tt.want)
			}
			if c != nil {
				t.Errorf("Load returned a corpus along with the error %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestLoadIgnoresOtherFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"list_directory/a.json":     {Data: []byte(goodFile)},
		"top.json":                  {Data: []byte(`{`)}, // not */*.json
		"list_directory/notes.txt":  {Data: []byte(`{`)},
		"list_directory/sub/b.json": {Data: []byte(`{`)}, // too deep
	}
	c, err := corpus.Load(fsys)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(c.Cases) != 1 || c.Cases[0].FullName() != "list_directory/x" {
		t.Errorf("Load found %d cases, want only list_directory/x", len(c.Cases))
	}
	empty, err := corpus.Load(fstest.MapFS{})
	if err != nil || len(empty.Cases) != 0 {
		t.Errorf("Load(empty) = %v cases, %v; want 0 cases and no error", empty, err)
	}
}

func TestSameShortNameInTwoSpecs(t *testing.T) {
	other := strings.Replace(goodFile, `"spec": "list_directory"`, `"spec": "codex_list_dir"`, 1)
	c, err := corpus.Load(fstest.MapFS{
		"list_directory/a.json": {Data: []byte(goodFile)},
		"codex_list_dir/a.json": {Data: []byte(other)},
	})
	if err != nil {
		t.Fatalf("a short name may repeat across specs: %v", err)
	}
	if len(c.Cases) != 2 {
		t.Errorf("got %d cases, want 2", len(c.Cases))
	}
}

// The expectation forms of the rule: any_of, contains, advice, policy.
func TestLoadExpectationForms(t *testing.T) {
	file := func(expect string, extra string) fstest.MapFS {
		return fstest.MapFS{"lp1/x.json": {Data: []byte(`{"spec":"lp1","defaults":{"tool":"apply_patch","fixture":"patch"},"cases":[{"name":"c","ids":["LP1-STR-01"],` + extra + `"args":{"patch":"x"},"expect":` + expect + `}]}`)}}
	}
	c, err := corpus.Load(file(`{"any_of":[
		{"error":{"kind":"PatchFailed","advice":{"message_contains":["line 3:"],"why":"helps"}},"tree":{}},
		{"contains":["modified: a.txt"],"tree":{"a.txt":{"content":"b"}}}]}`, `"policy":{"lp1_missing_file":"refuse"},`))
	if err != nil {
		t.Fatal(err)
	}
	k := c.Cases[0]
	if len(k.Expect.AnyOf) != 2 || k.Expect.AnyOf[0].Error.Advice.MessageContains[0] != "line 3:" || k.Expect.AnyOf[1].Contains[0] != "modified: a.txt" {
		t.Errorf("expect = %+v", k.Expect)
	}
	if k.Policy["lp1_missing_file"] != "refuse" || !k.Expect.HasTree() || !k.Mutates(nil) {
		t.Errorf("policy %v, HasTree %v, Mutates %v", k.Policy, k.Expect.HasTree(), k.Mutates(nil))
	}
	for _, bad := range []struct{ expect, extra string }{
		{`{"any_of":[{"text":"a"}]}`, ``},
		{`{"any_of":[{"text":"a"},{"any_of":[{"text":"b"},{"text":"c"}]}]}`, ``},
		{`{"text":"a","contains":["a"]}`, ``},
		{`{"contains":[]}`, ``},
		{`{"error":{"kind":"PatchFailed","advice":{"why":"x"}}}`, ``},
		{`{"text":"a"}`, `"policy":{},`},
		{`{"text":"a"}`, `"policy":{"lp1_missing_file":1},`},
	} {
		if _, err := corpus.Load(file(bad.expect, bad.extra)); err == nil {
			t.Errorf("expect %s %s: loaded, want a format error", bad.expect, bad.extra)
		}
	}
}

// TestArrayExpectationSchema checks the schema of the "$array" form of a
// json expectation, at any depth.
func TestArrayExpectationSchema(t *testing.T) {
	tests := []struct {
		name, json string
		wantErr    string // substring of the error; "" = valid
	}{
		{"length", `{"entries": {"$array": {"length": 200}}}`, ""},
		{"every property", `{"entries": {"$array": {"length": 2, "each": {"depth": 1}, "at": {"0": {"name": "a"}, "-1": {"name": "b"}}, "subsequence": [{"name": "a"}]}}}`, ""},
		{"nested", `{"a": [{"entries": {"$array": {"each": {"c": {"$array": {"length": 0}}}}}}]}`, ""},
		{"top level", `{"$array": {"length": 1}}`, ""},
		{"ordinary object with a dollar key elsewhere", `{"$ref": 1}`, ""},
		{"no property", `{"entries": {"$array": {}}}`, "at /cases/0/expect/json/entries/$array"},
		{"unknown property", `{"entries": {"$array": {"size": 1}}}`, "at /cases/0/expect/json/entries/$array"},
		{"negative length", `{"entries": {"$array": {"length": -1}}}`, "at /cases/0/expect/json/entries/$array/length"},
		{"fractional length", `{"entries": {"$array": {"length": 1.5}}}`, "at /cases/0/expect/json/entries/$array/length"},
		{"index not an integer", `{"entries": {"$array": {"at": {"first": {}}}}}`, "at /cases/0/expect/json/entries/$array/at"},
		{"index with a leading zero", `{"entries": {"$array": {"at": {"01": {}}}}}`, "at /cases/0/expect/json/entries/$array/at"},
		{"empty subsequence", `{"entries": {"$array": {"subsequence": []}}}`, "at /cases/0/expect/json/entries/$array/subsequence"},
		{"other keys beside $array", `{"entries": {"$array": {"length": 1}, "n": 1}}`, "at /cases/0/expect/json/entries"},
		{"bad form nested in an array", `[{"e": {"$array": {"length": "2"}}}]`, "at /cases/0/expect/json/0/e/$array/length"},
		{"alternatives", `{"before": {"$any": [[], ["l1"]]}}`, ""},
		{"alternatives inside an array form", `{"m": {"$array": {"each": {"$any": [{"a": 1}, {"a": 2}]}}}}`, ""},
		{"one alternative", `{"before": {"$any": [[]]}}`, "at /cases/0/expect/json/before/$any"},
		{"other keys beside $any", `{"before": {"$any": [1, 2], "n": 1}}`, "at /cases/0/expect/json/before"},
		{"bad form nested in alternatives", `{"b": {"$any": [1, {"$array": {}}]}}`, "at /cases/0/expect/json/b/$any/1/$array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := strings.Replace(goodFile, `{"json": {}}`, `{"json": `+tt.json+`}`, 1)
			_, err := corpus.Load(fstest.MapFS{"list_directory/a.json": {Data: []byte(file)}})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("want valid, got %v", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("want an error at %q, got none", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("error does not contain %q:\n%v", tt.wantErr, err)
			}
		})
	}
}
