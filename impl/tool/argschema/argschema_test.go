package argschema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tool/argschema"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// every uses each keyword of the subset, nested.
const every = `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"t","$comment":"c",
 "type":"object","description":"d","examples":[{}],
 "properties":{
  "s":{"type":"string","minLength":2,"maxLength":3,"default":"ab"},
  "n":{"type":"number","minimum":-1.5,"maximum":10},
  "i":{"type":["integer","null"],"minimum":0},
  "e":{"enum":["a",1,null,true]},
  "e1":{"enum":["only"]},
  "eo":{"enum":[{"a":1},[1]]},
  "c":{"const":"fixed"},
  "co":{"const":{"k":[1,2]}},
  "a":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"additionalProperties":false}},
  "f":false,
  "t":true,
  "m":{"type":"object","additionalProperties":{"type":"integer"}}
 },
 "required":["s"],
 "additionalProperties":false}`

// values are tried in every property of every schema.
var values = []string{`null`, `true`, `false`, `""`, `"a"`, `"ab"`, `"abcd"`, `"exact"`, `"only"`, `"fixed"`, `"stdout"`,
	`0`, `-1`, `-1.5`, `-2`, `1`, `1.0`, `1.5`, `2`, `10`, `10.5`, `1e2`, `1e400`, `9007199254740993`, `0.1`,
	`[]`, `["a"]`, `[1]`, `[1,2,3]`, `[{"k":"v"}]`, `[{"k":1}]`, `[{}]`, `[{"k":"v","x":1}]`, `[{"stream":"stdout","text":"t"}]`,
	`[{"stream":"bad","text":1}]`, `{}`, `{"a":1}`, `{"k":[1,2]}`, `{"k":[2,1]}`, `{"x":1.5}`}

// schemas are the reference's tool schemas (the test tools included) and
// every.
func schemas(t *testing.T) map[string][]byte {
	ref, err := reference.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref.HelloFor(fcp.Request{Op: fcp.OpHello, TestTools: true})
	out := map[string][]byte{"every": []byte(every)}
	for _, d := range ref.Registry().Definitions() {
		out[d.Name] = d.Parameters
	}
	return out
}

func v5Compile(t *testing.T, name string, raw []byte) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) { return nil, fmt.Errorf("no remote schemas: %s", u) }
	u := "https://forge-conform.invalid/" + name + ".json"
	if err := c.AddResource(u, bytes.NewReader(raw)); err != nil {
		t.Fatalf("%s: v5: %v", name, err)
	}
	s, err := c.Compile(u)
	if err != nil {
		t.Fatalf("%s: v5 does not compile it: %v", name, err)
	}
	return s
}

// TestAgreesWithV5 checks verdicts and messages against jsonschema/v5 (as
// fcpschema.DescribeError words its errors) for every tool schema: each
// instance is the schema's required properties (one sample value each)
// with one property set to one value of values; one property varies at a
// time. v5 visits properties in map order, so where several reasons come
// from one value (an object in an array) they are compared unordered.
func TestAgreesWithV5(t *testing.T) {
	n := 0
	for name, raw := range schemas(t) {
		v5 := v5Compile(t, name, raw)
		ours, err := argschema.Compile(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var doc struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		props := append([]string{"zz_unknown"}, doc.Required...)
		for p := range doc.Properties {
			props = append(props, p)
		}
		slices.Sort(props)
		for _, base := range []string{`{}`, requiredSample(v5, doc.Required)} {
			check := func(inst string) {
				n++
				v, err := fcp.DecodeJSON([]byte(inst))
				if err != nil {
					t.Fatalf("%s: %s: %v", name, inst, err)
				}
				want, got := "", ""
				if err := v5.Validate(v); err != nil {
					want = sortExtra(fcpschema.DescribeError(err))
				}
				if err := ours.Validate(v); err != nil {
					got = err.Error()
				}
				if got != want && unordered(got) != unordered(want) {
					t.Errorf("%s: %s:\n got %q\nwant %q (jsonschema/v5)", name, inst, got, want)
				}
			}
			check(base)
			for _, p := range props {
				for _, val := range values {
					check(with(base, p, val))
				}
			}
		}
		for _, val := range values {
			check := func(inst string) {
				n++
				v, _ := fcp.DecodeJSON([]byte(inst))
				if (v5.Validate(v) == nil) != (ours.Validate(v) == nil) {
					t.Errorf("%s: %s: verdicts differ (v5 valid: %v)", name, inst, v5.Validate(v) == nil)
				}
			}
			check(val)
		}
	}
	t.Logf("%d instances", n)
}

// unordered is a message with its reasons sorted: v5 gives the reasons
// of several properties in map order, argschema by name. When more than
// three are cut to "and N more", which three v5 shows depends on that
// order too: only their number is kept.
func unordered(msg string) string {
	leaves := strings.Split(msg, "; ")
	if last := leaves[len(leaves)-1]; strings.HasPrefix(last, "and ") {
		return fmt.Sprintf("%d reasons, %s", len(leaves)-1, last)
	}
	slices.Sort(leaves)
	return strings.Join(leaves, "; ")
}

// sortExtra sorts the names v5 lists in "additionalProperties 'b', 'a'
// not allowed", which follow its map order; argschema sorts them.
func sortExtra(msg string) string {
	return extraRE.ReplaceAllStringFunc(msg, func(m string) string {
		names := strings.Split(strings.TrimSuffix(strings.TrimPrefix(m, "additionalProperties "), " not allowed"), ", ")
		slices.Sort(names)
		return "additionalProperties " + strings.Join(names, ", ") + " not allowed"
	})
}

var extraRE = regexp.MustCompile(`additionalProperties '.*?' not allowed`)

// requiredSample is an object with each required property set to the
// first of values that v5 finds no fault with there.
func requiredSample(v5 *jsonschema.Schema, required []string) string {
	base := `{}`
	for _, r := range required {
		for _, val := range values {
			v, _ := fcp.DecodeJSON([]byte(with(`{}`, r, val)))
			if err := v5.Validate(v); err == nil || !strings.Contains(fcpschema.DescribeError(err), "at /"+r+":") {
				base = with(base, r, val)
				break
			}
		}
	}
	return base
}

// with sets property p of the object base to the JSON value val.
func with(base, p, val string) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal([]byte(base), &m)
	m[p] = json.RawMessage(val)
	b, _ := json.Marshal(m)
	return string(b)
}

// Several reasons come in a fixed order (properties by name), where v5's
// order follows its maps.
func TestSeveralReasonsSorted(t *testing.T) {
	s, err := argschema.Compile([]byte(every))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := fcp.DecodeJSON([]byte(`{"z":1,"n":"x","i":-1,"e":"b","y":2}`))
	for range 20 {
		err := s.Validate(v)
		want := `at /: missing properties: 's'; at /e: value must be one of "a", "1", <nil>, true; at /i: must be >= 0 but found -1; and 2 more`
		if err == nil || err.Error() != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
	}
}

func TestCompileRefuses(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"nonsense"}`, `unknown type "nonsense"`},
		{`{"type":5}`, "want a type name"},
		{`{"pattern":"^a"}`, `keyword "pattern" is outside the subset`},
		{`{"properties":{"p":{"format":"email"}}}`, `at /properties/p/format: keyword "format" is outside`},
		{`{"$ref":"https://example.com/s.json"}`, "self-contained"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#"}`, "Draft 2020-12"},
		{`{"minimum":"1"}`, "want a number"},
		{`{"minLength":-1}`, "non-negative integer"},
		{`{"minLength":1.5}`, "non-negative integer"},
		{`{"items":[{}]}`, "a schema is an object or a boolean"},
		{`{"required":[1]}`, "array of strings"},
		{`{"enum":"a"}`, "want an array"},
		{`{`, "not valid JSON"},
		{`{} {}`, "data after"},
		{`[]`, "a schema is an object or a boolean"},
	}
	for _, tt := range tests {
		_, err := argschema.Compile([]byte(tt.schema))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%s) = %v, want an error containing %q", tt.schema, err, tt.want)
		}
	}
	for _, ok := range []string{`true`, `false`, `{}`, `{"$schema":"https://json-schema.org/draft/2020-12/schema#"}`} {
		if _, err := argschema.Compile([]byte(ok)); err != nil {
			t.Errorf("Compile(%s) = %v", ok, err)
		}
	}
}
