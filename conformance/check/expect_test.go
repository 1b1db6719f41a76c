package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

var caseIDs = []string{"T-LD-01", "FR-LD-LST-01"}

func okResp(content string) fcp.Response {
	return fcp.Response{OK: fcp.Bool(true), Content: &content, AllowTruncation: fcp.Bool(false)}
}

func errResp(e fcp.Error) fcp.Response { return fcp.Response{OK: fcp.Bool(false), Error: &e} }

func strp(s string) *string { return &s }

// expectInput builds an Input for a case of a tool without invariants, so
// only the expectation speaks.
func expectInput(e corpus.Expect, r fcp.Response) Input {
	return Input{Case: &corpus.Case{Spec: "x", Name: "c", Op: "call", Tool: "other_tool", IDs: caseIDs, Expect: e}, Resp: r}
}

func TestExpectationJSON(t *testing.T) {
	tests := []struct {
		name, want, got string
		fail            string // substring of the message; "" = match
		diff            string // substring of the diff
	}{
		{name: "exact", want: `{"a":1}`, got: `{"a":1}`},
		{name: "extra keys ignored", want: `{"a":1}`, got: `{"a":1,"b":2}`},
		{name: "nested extra keys ignored", want: `{"entries":[{"name":"x"}]}`, got: `{"path":".","entries":[{"name":"x","depth":1,"type":"file"}]}`},
		{name: "deeply nested", want: `{"a":{"b":{"c":[{"d":true}]}}}`, got: `{"a":{"b":{"c":[{"d":true,"e":1}],"z":0}}}`},
		{name: "null value", want: `{"error_code":null}`, got: `{"error_code":null,"error":null}`},
		{name: "string value", want: `"hello"`, got: `"hello"`},
		{name: "value differs", want: `{"a":1}`, got: `{"a":2}`, fail: "result differs from the expectation", diff: "-"},
		{name: "nested value differs", want: `{"entries":[{"name":"x"}]}`, got: `{"entries":[{"name":"y"}]}`, fail: "only the fields the case lists", diff: `"y"`},
		{name: "missing key", want: `{"a":1,"b":null}`, got: `{"a":1}`, fail: "result differs"},
		{name: "array too long", want: `{"entries":[{"name":"x"}]}`, got: `{"entries":[{"name":"x"},{"name":"y"}]}`, fail: "result differs", diff: `"y"`},
		{name: "array too short", want: `{"entries":[{"name":"x"},{"name":"y"}]}`, got: `{"entries":[{"name":"x"}]}`, fail: "result differs"},
		{name: "empty array wants empty", want: `{"entries":[]}`, got: `{"entries":[{"name":"x"}]}`, fail: "result differs"},
		{name: "object where array wanted", want: `{"entries":[]}`, got: `{"entries":{}}`, fail: "result differs"},
		{name: "type differs", want: `{"a":"1"}`, got: `{"a":1}`, fail: "result differs"},
		{name: "content not JSON", want: `{"a":1}`, got: `a: 1`, fail: "content is not JSON"},
		{name: "expectation not JSON", want: `{"a":`, got: `{"a":1}`, fail: "case expectation is not valid JSON"},
		{name: "array length", want: `{"e":{"$array":{"length":3}}}`, got: `{"e":[1,2,3]}`},
		{name: "array length differs", want: `{"e":{"$array":{"length":2}}}`, got: `{"e":[1,2,3]}`, fail: "result differs", diff: "3"},
		{name: "array length of empty", want: `{"e":{"$array":{"length":0}}}`, got: `{"e":[]}`},
		{name: "array each", want: `{"e":{"$array":{"each":{"d":1}}}}`, got: `{"e":[{"d":1,"n":"a"},{"d":1,"n":"b"}]}`},
		{name: "array each of empty", want: `{"e":{"$array":{"each":{"d":1}}}}`, got: `{"e":[]}`},
		{name: "array each differs", want: `{"e":{"$array":{"each":{"d":1}}}}`, got: `{"e":[{"d":1},{"d":2},{"d":3}]}`, fail: "result differs", diff: "2"},
		{name: "array at first and last", want: `{"e":{"$array":{"at":{"0":{"n":"a"},"-1":{"n":"c"}}}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"c"}]}`},
		{name: "array at positive last", want: `{"e":{"$array":{"at":{"2":{"n":"c"}}}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"c"}]}`},
		{name: "array at differs", want: `{"e":{"$array":{"at":{"-1":{"n":"b"}}}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"c"}]}`, fail: "result differs", diff: `"c"`},
		{name: "array at out of range", want: `{"e":{"$array":{"at":{"3":{"n":"a"}}}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"c"}]}`, fail: "result differs"},
		{name: "array at negative out of range", want: `{"e":{"$array":{"at":{"-4":{"n":"a"}}}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"c"}]}`, fail: "result differs"},
		{name: "array at of empty", want: `{"e":{"$array":{"at":{"0":{}}}}}`, got: `{"e":[]}`, fail: "result differs"},
		{name: "array subsequence", want: `{"e":{"$array":{"subsequence":[{"n":"a"},{"n":"c"}]}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"c"}]}`},
		{name: "array subsequence whole", want: `{"e":{"$array":{"subsequence":[{"n":"a"},{"n":"b"},{"n":"c"}]}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"c"}]}`},
		{name: "array subsequence out of order", want: `{"e":{"$array":{"subsequence":[{"n":"c"},{"n":"a"}]}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"c"}]}`, fail: "result differs", diff: `"a"`},
		{name: "array subsequence needs distinct elements", want: `{"e":{"$array":{"subsequence":[{"n":"a"},{"n":"a"}]}}}`, got: `{"e":[{"n":"a"},{"n":"b"}]}`, fail: "result differs"},
		{name: "array subsequence repeated", want: `{"e":{"$array":{"subsequence":[{"n":"a"},{"n":"a"}]}}}`, got: `{"e":[{"n":"a"},{"n":"b"},{"n":"a"}]}`},
		{name: "array subsequence missing", want: `{"e":{"$array":{"subsequence":[{"n":"a"},{"n":"z"}]}}}`, got: `{"e":[{"n":"a"},{"n":"b"}]}`, fail: "result differs", diff: `"z"`},
		{name: "array all properties", want: `{"e":{"$array":{"length":3,"each":{"d":1},"at":{"0":{"n":"a"}},"subsequence":[{"n":"b"},{"n":"c"}]}}}`, got: `{"e":[{"n":"a","d":1},{"n":"b","d":1},{"n":"c","d":1}]}`},
		{name: "array one property of several differs", want: `{"e":{"$array":{"length":3,"each":{"d":1}}}}`, got: `{"e":[{"d":1},{"d":1}]}`, fail: "result differs", diff: "length"},
		{name: "array nested in array expectation", want: `{"e":{"$array":{"each":{"c":{"$array":{"length":1}}}}}}`, got: `{"e":[{"c":[1]},{"c":[2]}]}`},
		{name: "array nested differs", want: `{"e":{"$array":{"each":{"c":{"$array":{"length":1}}}}}}`, got: `{"e":[{"c":[1]},{"c":[2,3]}]}`, fail: "result differs"},
		{name: "array expectation on an object", want: `{"e":{"$array":{"length":0}}}`, got: `{"e":{}}`, fail: "result differs"},
		{name: "array expectation on null", want: `{"e":{"$array":{"length":0}}}`, got: `{"e":null}`, fail: "result differs"},
		{name: "alternatives first", want: `{"b":{"$any":[[],["l1"]]}}`, got: `{"b":[]}`},
		{name: "alternatives second", want: `{"b":{"$any":[[],["l1"]]}}`, got: `{"b":["l1"]}`},
		{name: "alternatives none", want: `{"b":{"$any":[[],["l1"]]}}`, got: `{"b":["l0"]}`, fail: "result differs", diff: `"l0"`},
		{name: "alternatives partial objects", want: `{"m":{"$any":[{"c":1},{"c":3}]}}`, got: `{"m":{"c":3,"x":9}}`},
		{name: "alternatives in array each", want: `{"e":{"$array":{"each":{"$any":[{"n":"a"},{"n":"c"}]}}}}`, got: `{"e":[{"n":"c"},{"n":"a"}]}`},
		{name: "alternatives in array each differ", want: `{"e":{"$array":{"each":{"$any":[{"n":"a"},{"n":"c"}]}}}}`, got: `{"e":[{"n":"c"},{"n":"b"}]}`, fail: "result differs"},
		{name: "array unknown property fails", want: `{"e":{"$array":{"size":0}}}`, got: `{"e":[]}`, fail: "result differs"},
		{name: "object with $array and more keys is an object", want: `{"e":{"$array":1,"b":2}}`, got: `{"e":{"$array":1,"b":2,"c":3}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Expectation(expectInput(corpus.Expect{JSON: json.RawMessage(tt.want)}, okResp(tt.got)))
			checkExpectFailures(t, fs, tt.fail, tt.diff)
		})
	}
}

// checkExpectFailures checks fs is empty when fail is "", else one expect
// failure naming the case's IDs whose message contains fail and whose diff
// contains diff.
func checkExpectFailures(t *testing.T, fs []Failure, fail, diff string) {
	t.Helper()
	if fail == "" {
		if len(fs) != 0 {
			t.Errorf("want no failure, got %d: %s", len(fs), messagesOf(fs))
		}
		return
	}
	if len(fs) != 1 {
		t.Fatalf("want one failure mentioning %q, got %d: %s", fail, len(fs), messagesOf(fs))
	}
	f := fs[0]
	if f.Kind != KindExpect {
		t.Errorf("kind = %q, want %q", f.Kind, KindExpect)
	}
	if d := cmp.Diff(caseIDs, f.IDs); d != "" {
		t.Errorf("an expectation failure must name every ID of the case (-want +got):\n%s", d)
	}
	if !strings.Contains(f.Message, fail) {
		t.Errorf("message = %q, want it to contain %q", f.Message, fail)
	}
	if !strings.Contains(f.Diff, diff) {
		t.Errorf("diff = %q, want it to contain %q", f.Diff, diff)
	}
}

func TestExpectationText(t *testing.T) {
	tests := []struct {
		name, want, got string
		fail, diff      string
	}{
		{name: "equal", want: "Absolute path: /r\na\nb/", got: "Absolute path: /r\na\nb/"},
		{name: "empty", want: "", got: ""},
		{name: "line differs", want: "Absolute path: /r\na\nb/", got: "Absolute path: /r\na\nc/", fail: "content differs from the expected text", diff: "\n-b/\n\\ No newline at end of file\n+c/\n"},
		{name: "trailing newline", want: "x", got: "x\n", fail: "content differs", diff: "-x\n\\ No newline at end of file\n+x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Expectation(expectInput(corpus.Expect{Text: strp(tt.want)}, okResp(tt.got)))
			checkExpectFailures(t, fs, tt.fail, tt.diff)
		})
	}
}

func TestExpectationError(t *testing.T) {
	denied := fcp.Error{Kind: "SandboxViolation", Message: "Path /etc is outside the sandbox",
		Denial: &fcp.Denial{Reason: "PathOutsideSandbox", Attempted: "/etc", Resolved: "/etc", Pattern: "", Message: "free text"}}
	tests := []struct {
		name   string
		expect corpus.ExpectError
		resp   fcp.Response
		fails  []string // one substring per expected failure, in order
	}{
		{name: "kind only", expect: corpus.ExpectError{Kind: "SandboxViolation"}, resp: errResp(denied)},
		{name: "kind differs", expect: corpus.ExpectError{Kind: "BadArgs"}, resp: errResp(denied),
			fails: []string{`want error kind BadArgs, got SandboxViolation (message: "Path /etc is outside the sandbox")`}},
		{name: "exact message", expect: corpus.ExpectError{Kind: "SandboxViolation", Message: strp("Path /etc is outside the sandbox")}, resp: errResp(denied)},
		{name: "exact message differs", expect: corpus.ExpectError{Kind: "SandboxViolation", Message: strp("path /etc is outside the sandbox")}, resp: errResp(denied),
			fails: []string{"error message differs"}},
		{name: "message_contains any case", expect: corpus.ExpectError{Kind: "SandboxViolation", MessageContains: []string{"OUTSIDE", "path /ETC"}}, resp: errResp(denied)},
		{name: "message_contains missing word", expect: corpus.ExpectError{Kind: "SandboxViolation", MessageContains: []string{"outside", "denied", "nope"}}, resp: errResp(denied),
			fails: []string{`does not contain "denied"`, `does not contain "nope"`}},
		{name: "denial reason", expect: corpus.ExpectError{Kind: "SandboxViolation", Denial: &corpus.ExpectDenial{Reason: "PathOutsideSandbox"}}, resp: errResp(denied)},
		{name: "denial fields compared when given", expect: corpus.ExpectError{Kind: "SandboxViolation", Denial: &corpus.ExpectDenial{Reason: "PathOutsideSandbox", Attempted: "/etc", Resolved: "/etc"}}, resp: errResp(denied)},
		{name: "denial reason differs", expect: corpus.ExpectError{Kind: "SandboxViolation", Denial: &corpus.ExpectDenial{Reason: "DeniedPatternMatched"}}, resp: errResp(denied),
			fails: []string{"denial differs"}},
		{name: "denial pattern differs", expect: corpus.ExpectError{Kind: "SandboxViolation", Denial: &corpus.ExpectDenial{Reason: "PathOutsideSandbox", Pattern: "**/.env"}}, resp: errResp(denied),
			fails: []string{"denial differs"}},
		{name: "denial attempted differs", expect: corpus.ExpectError{Kind: "SandboxViolation", Denial: &corpus.ExpectDenial{Reason: "PathOutsideSandbox", Attempted: "/var"}}, resp: errResp(denied),
			fails: []string{"denial differs"}},
		{name: "no denial", expect: corpus.ExpectError{Kind: "SandboxViolation", Denial: &corpus.ExpectDenial{Reason: "PathOutsideSandbox"}},
			resp: errResp(fcp.Error{Kind: "SandboxViolation", Message: "m"}), fails: []string{"want denial reason PathOutsideSandbox, got no denial"}},
		{name: "several differences", expect: corpus.ExpectError{Kind: "BadArgs", Message: strp("x"), MessageContains: []string{"y"}}, resp: errResp(denied),
			fails: []string{"want error kind BadArgs", "error message differs", `does not contain "y"`}},
		{name: "success instead of error", expect: corpus.ExpectError{Kind: "BadArgs"}, resp: okResp(`{"a":1}`),
			fails: []string{"want error BadArgs, got a successful result"}},
		{name: "neither content nor error", expect: corpus.ExpectError{Kind: "BadArgs"}, resp: fcp.Response{OK: fcp.Bool(false)},
			fails: []string{"want error BadArgs, got a response with neither content nor error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.expect
			fs := Expectation(expectInput(corpus.Expect{Error: &e}, tt.resp))
			if len(fs) != len(tt.fails) {
				t.Fatalf("got %d failure(s), want %d %q:\n\t%s", len(fs), len(tt.fails), tt.fails, messagesOf(fs))
			}
			for i, w := range tt.fails {
				if !strings.Contains(fs[i].Message, w) {
					t.Errorf("failure %d = %q, want it to contain %q", i, fs[i].Message, w)
				}
				if fs[i].Kind != KindExpect || !cmp.Equal(fs[i].IDs, caseIDs) {
					t.Errorf("failure %d has kind %q IDs %v, want %q %v", i, fs[i].Kind, fs[i].IDs, KindExpect, caseIDs)
				}
			}
		})
	}
}

func TestExpectationSuccessWanted(t *testing.T) {
	tests := []struct {
		name string
		resp fcp.Response
		want string
	}{
		{"error", errResp(fcp.Error{Kind: "BadArgs", Message: "path must not be empty"}), "want a successful result, got BadArgs: path must not be empty"},
		{"nothing", fcp.Response{}, "want a successful result, got an error"},
	}
	for _, tt := range tests {
		for _, e := range []corpus.Expect{{JSON: json.RawMessage(`{}`)}, {Text: strp("")}} {
			fs := Expectation(expectInput(e, tt.resp))
			if len(fs) != 1 || fs[0].Message != tt.want {
				t.Errorf("%s: failures %s, want exactly %q", tt.name, messagesOf(fs), tt.want)
			}
		}
	}
}

func TestExpectationDefinitions(t *testing.T) {
	resp := fcp.Response{OK: fcp.Bool(true), Definitions: []fcp.Definition{
		{Name: "list_directory", Description: "List directory entries", Parameters: json.RawMessage(`{"type":"object","required":["path"]}`), RiskLevel: "Low"},
		{Name: "list_dir", Description: "d", Parameters: json.RawMessage(`{}`)},
	}}
	tests := []struct {
		name, want string
		fail       bool
	}{
		{"by name", `{"list_directory":{"description":"List directory entries","side_effecting":false,"risk_level":"Low"}}`, false},
		{"nested parameters", `{"list_directory":{"parameters":{"required":["path"]}}}`, false},
		{"wrong description", `{"list_directory":{"description":"List files"}}`, true},
		{"missing tool", `{"write_file":{}}`, true},
	}
	for _, tt := range tests {
		in := Input{Case: &corpus.Case{Op: fcp.OpDefinitions, IDs: caseIDs, Expect: corpus.Expect{JSON: json.RawMessage(tt.want)}}, Resp: resp}
		fs := Expectation(in)
		if got := len(fs) > 0; got != tt.fail {
			t.Errorf("%s: failed = %v, want %v: %s", tt.name, got, tt.fail, messagesOf(fs))
		}
	}
}

func TestProject(t *testing.T) {
	dec := func(s string) any {
		var v any
		if err := decodeJSON([]byte(s), &v); err != nil {
			t.Fatalf("decoding %s: %v", s, err)
		}
		return v
	}
	tests := []struct{ name, want, got, proj string }{
		{"keeps only wanted keys", `{"a":0}`, `{"a":1,"b":2}`, `{"a":1}`},
		{"drops missing keys", `{"a":0,"b":0}`, `{"a":1}`, `{"a":1}`},
		{"projects every element on the last wanted shape", `[{"a":0}]`, `[{"a":1,"b":1},{"a":2,"b":2}]`, `[{"a":1},{"a":2}]`},
		{"element by element", `[{"a":0},{"b":0}]`, `[{"a":1,"b":1},{"a":2,"b":2}]`, `[{"a":1},{"b":2}]`},
		{"empty want array keeps elements", `[]`, `[{"a":1}]`, `[{"a":1}]`},
		{"type mismatch keeps got", `{"a":0}`, `[1]`, `[1]`},
		{"scalar", `1`, `{"a":1}`, `{"a":1}`},
		{"nested", `{"a":{"b":[{"c":0}]}}`, `{"a":{"b":[{"c":1,"d":1}],"e":1}}`, `{"a":{"b":[{"c":1}]}}`},
		{"array length", `{"$array":{"length":1}}`, `[1,2]`, `{"$array":{"length":2}}`},
		{"array each keeps the first mismatch", `{"$array":{"each":{"a":0}}}`, `[{"a":0,"b":1},{"a":2,"b":2},{"a":3}]`, `{"$array":{"each":{"a":2}}}`},
		{"array at drops indexes out of range", `{"$array":{"at":{"0":{"a":0},"-1":{"a":0},"5":{"a":0}}}}`, `[{"a":1,"b":1},{"a":2}]`, `{"$array":{"at":{"0":{"a":1},"-1":{"a":2}}}}`},
		{"array subsequence stops at the first missing", `{"$array":{"subsequence":[{"a":1},{"a":9},{"a":2}]}}`, `[{"a":1},{"a":2}]`, `{"$array":{"subsequence":[{"a":1}]}}`},
		{"array expectation on a scalar keeps got", `{"$array":{"length":1}}`, `1`, `1`},
	}
	for _, tt := range tests {
		got := Project(dec(tt.want), dec(tt.got))
		if d := cmp.Diff(dec(tt.proj), got); d != "" {
			t.Errorf("%s: Project(%s, %s) differs (-want +got):\n%s", tt.name, tt.want, tt.got, d)
		}
	}
}

func TestResponseRunsExpectationAndInvariants(t *testing.T) {
	content := replaceOnce(ldGood, `"returned":1`, `"returned":2`)
	in := ldInput(t, `{"path":"."}`, ``, content)
	in.Case.Expect = corpus.Expect{JSON: json.RawMessage(`{"returned":1}`)}
	fs := Response(in)
	kinds := map[string]bool{}
	for _, f := range fs {
		kinds[f.Kind] = true
	}
	if !kinds[KindExpect] || !kinds[KindInvariant] || len(fs) != 2 {
		t.Errorf("Response gave %s, want one expect and one invariant failure", messagesOf(fs))
	}
}

func TestDecodeObject(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]any
		wantErr bool
	}{
		{"", map[string]any{}, false},
		{"null", map[string]any{}, false},
		{`{"n":1}`, map[string]any{"n": json.Number("1")}, false},
		{`[1]`, nil, true},
		{`{`, nil, true},
	}
	for _, tt := range tests {
		got, err := DecodeObject([]byte(tt.in))
		if (err != nil) != tt.wantErr {
			t.Errorf("DecodeObject(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if d := cmp.Diff(tt.want, got); !tt.wantErr && d != "" {
			t.Errorf("DecodeObject(%q) differs (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestClip(t *testing.T) {
	if got := clip("abc", 5); got != "abc" {
		t.Errorf("clip short = %q", got)
	}
	if got := clip("abcdef", 2); got != "ab... (4 more bytes)" {
		t.Errorf("clip long = %q, want %q", got, "ab... (4 more bytes)")
	}
}

// The expectation forms of the rule (spec/INTERPRETATIONS.md): contains,
// advice (a warning) and any_of (one reading must hold).
func TestExpectationForms(t *testing.T) {
	patchFailed := &corpus.ExpectError{Kind: "PatchFailed", Advice: &corpus.Advice{MessageContains: []string{"line 3:"}, Why: "helps"}}
	anyOf := corpus.Expect{AnyOf: []corpus.Expect{{Error: patchFailed}, {Text: strp("No changes applied.")}}}
	tests := []struct {
		name      string
		e         corpus.Expect
		r         fcp.Response
		fails     []string // messages of severity fail, by substring
		warnings  []string // messages of severity warn
		wantNoErr bool
	}{
		{name: "contains holds", e: corpus.Expect{Contains: []string{"create", "6"}}, r: okResp("Created /x/new.txt (6 bytes)")},
		{name: "contains any case", e: corpus.Expect{Contains: []string{"CREATED"}}, r: okResp(`{"status":"created"}`)},
		{name: "contains misses", e: corpus.Expect{Contains: []string{"create", "7"}}, r: okResp("Created (6 bytes)"), fails: []string{`does not contain "7"`}},
		{name: "contains wants success", e: corpus.Expect{Contains: []string{"x"}}, r: errResp(fcp.Error{Kind: "BadArgs", Message: "x"}), fails: []string{"want a successful result"}},
		{name: "advice followed", e: corpus.Expect{Error: patchFailed}, r: errResp(fcp.Error{Kind: "PatchFailed", Message: "line 3: Match not found"})},
		{name: "advice not followed is a warning", e: corpus.Expect{Error: patchFailed}, r: errResp(fcp.Error{Kind: "PatchFailed", Message: "Match not found"}), warnings: []string{`advice: error message "Match not found" does not contain "line 3:" (helps)`}},
		{name: "advice does not excuse the kind", e: corpus.Expect{Error: patchFailed}, r: errResp(fcp.Error{Kind: "StaleFile", Message: "x"}), fails: []string{"want error kind PatchFailed"}, warnings: []string{"advice"}},
		{name: "any_of first reading", e: anyOf, r: errResp(fcp.Error{Kind: "PatchFailed", Message: "line 3: x"})},
		{name: "any_of first reading with its warning", e: anyOf, r: errResp(fcp.Error{Kind: "PatchFailed", Message: "x"}), warnings: []string{"advice"}},
		{name: "any_of second reading", e: anyOf, r: okResp("No changes applied.")},
		{name: "success holds whatever the content", e: corpus.Expect{Success: true}, r: okResp("anything")},
		{name: "success wants success", e: corpus.Expect{Success: true}, r: errResp(fcp.Error{Kind: "BadArgs", Message: "x"}), fails: []string{"want a successful result"}},
		{name: "text advice followed", e: corpus.Expect{Success: true, Advice: &corpus.TextAdvice{Text: "Read a.txt", Why: "guidance"}}, r: okResp("Read a.txt")},
		{name: "text advice not followed is a warning", e: corpus.Expect{Success: true, Advice: &corpus.TextAdvice{Text: "Read a.txt", Why: "guidance"}}, r: okResp("Reading a.txt"), warnings: []string{`advice: result "Reading a.txt" differs from "Read a.txt" (guidance)`}},
		{name: "json advice followed", e: corpus.Expect{JSON: []byte(`{"n":1}`), Advice: &corpus.TextAdvice{JSON: []byte(`{"n":1,"m":[1,2]}`), Why: "reference"}}, r: okResp(`{"n":1,"m":[1,2],"x":0}`)},
		{name: "json advice not followed is a warning", e: corpus.Expect{JSON: []byte(`{"n":1}`), Advice: &corpus.TextAdvice{JSON: []byte(`{"n":1,"m":[1,2]}`), Why: "reference"}}, r: okResp(`{"n":1,"m":[2,1]}`), warnings: []string{"advice: result differs from the reference's reading (only the fields the advice lists are compared) (reference)"}},
		{name: "json advice does not excuse the must-part", e: corpus.Expect{JSON: []byte(`{"n":1}`), Advice: &corpus.TextAdvice{JSON: []byte(`{"n":1}`)}}, r: okResp(`{"n":2}`), fails: []string{"result differs from the expectation"}, warnings: []string{"advice: result differs"}},
		{name: "json advice on content that is not JSON", e: corpus.Expect{Success: true, Advice: &corpus.TextAdvice{JSON: []byte(`{"n":1}`)}}, r: okResp(`n=1`), warnings: []string{"advice: content is not JSON"}},
		{name: "any_of none", e: anyOf, r: okResp("modified: a.txt"), fails: []string{"none of the 2 readings the SRD allows holds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fails, warns []string
			for _, f := range Expectation(expectInput(tt.e, tt.r)) {
				switch f.Severity {
				case SeverityFail:
					fails = append(fails, f.Message)
				case SeverityWarn:
					warns = append(warns, f.Message)
				default:
					t.Errorf("unexpected severity %q: %s", f.Severity, f.Message)
				}
			}
			match := func(kind string, got, want []string) {
				if len(got) != len(want) {
					t.Fatalf("%s = %q, want %d matching %q", kind, got, len(want), want)
				}
				for i := range want {
					if !strings.Contains(got[i], want[i]) {
						t.Errorf("%s[%d] = %q, want it to contain %q", kind, i, got[i], want[i])
					}
				}
			}
			match("failures", fails, tt.fails)
			match("warnings", warns, tt.warnings)
		})
	}
}

func TestAnyOfChecksEachReadingsTree(t *testing.T) {
	before := Snapshot{"root/a.txt": {Type: "file", Mode: "0644", Content: "a\n"}}
	after := Snapshot{"root/a.txt": {Type: "file", Mode: "0644", Content: "b\n"}}
	e := corpus.Expect{AnyOf: []corpus.Expect{
		{Text: strp("modified: a.txt"), Tree: map[string]corpus.TreeEntry{"a.txt": {Content: strp("b")}}},
		{Text: strp("modified: a.txt"), Tree: map[string]corpus.TreeEntry{"a.txt": {Content: strp("b\n")}}},
	}}
	in := expectInput(e, okResp("modified: a.txt"))
	in.Before, in.After = before, after
	if fs := Expectation(in); len(fs) != 0 {
		t.Errorf("the second reading holds, got %+v", fs)
	}
	e.AnyOf = e.AnyOf[:1]
	e.AnyOf = append(e.AnyOf, corpus.Expect{Error: &corpus.ExpectError{Kind: "PatchFailed"}, Tree: map[string]corpus.TreeEntry{}})
	in = expectInput(e, okResp("modified: a.txt"))
	in.Before, in.After = before, after
	fs := Expectation(in)
	if len(fs) != 1 || !strings.Contains(fs[0].Diff, "reading 1: the filesystem after the call differs") || !strings.Contains(fs[0].Diff, "reading 2: want error PatchFailed") {
		t.Errorf("got %+v", fs)
	}
}
