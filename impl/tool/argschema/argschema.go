// Package argschema validates tool arguments against JSON Schema Draft
// 2020-12 restricted to the keywords tool schemas need (FR-VAL-01a: "a
// restricted schema subset", enforced the same way for every tool): type,
// enum, const, properties, required, additionalProperties, items,
// minimum, maximum, minLength, maxLength, minItems and maxItems, plus the
// annotations $schema, title, description, default, examples and
// $comment. Compile refuses any other keyword, so a schema never means
// less here than it says.
//
// It exists for start-up time: the general validators do work when a
// program starts (jsonschema/v5 and v6 compile every draft's metaschema in
// their package init, 3-5 ms) and the reference served over FCP/1 must
// answer hello in about the time of a minimal Go program. Its verdicts and
// messages are those of santhosh-tekuri/jsonschema/v5, which the harness
// uses for FCP/1 messages, as fcpschema.DescribeError words them ("at
// /path: expected string, but got number"); the tests check both against
// v5 on every tool schema of the reference. Numbers are compared exactly
// (math/big), as v5 does.
package argschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Draft is the one dialect a schema may declare in $schema.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Schema is a compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	types      []string // "" entries never occur; empty: any type
	enum       []any
	enumErr    string
	hasConst   bool
	constVal   any
	props      map[string]*Schema
	required   []string
	addlFalse  bool    // additionalProperties: false
	addl       *Schema // additionalProperties: a schema
	items      *Schema
	min, max   *big.Rat
	minLength  int // -1: none
	maxLength  int
	minItems   int
	maxItems   int
	falseValue bool // the schema false
}

// Compile parses a schema (a JSON object or boolean). It fails on JSON it
// cannot read, on a $schema other than Draft, on a keyword outside the
// subset and on a keyword whose value is not what Draft 2020-12 allows.
func Compile(raw []byte) (*Schema, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %v", err)
	}
	if d.More() {
		return nil, fmt.Errorf("schema is not valid JSON: data after the value")
	}
	if m, ok := doc.(map[string]any); ok {
		if v, ok := m["$schema"]; ok {
			if s, _ := v.(string); strings.TrimSuffix(s, "#") != Draft {
				return nil, fmt.Errorf("$schema is %v; tool schemas are JSON Schema Draft 2020-12 (%s)", v, Draft)
			}
		}
	}
	return compile(doc, "")
}

func compile(doc any, loc string) (*Schema, error) {
	s := &Schema{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	switch doc := doc.(type) {
	case bool:
		s.falseValue = !doc
		return s, nil
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(doc)) {
			if err := s.keyword(k, doc[k], loc); err != nil {
				return nil, fmt.Errorf("at %s/%s: %v", loc, k, err)
			}
		}
		return s, nil
	}
	return nil, fmt.Errorf("at %s: a schema is an object or a boolean, got %s", orRoot(loc), jsonType(doc))
}

// typeNames are the names "type" takes.
const typeNames = "array, boolean, integer, null, number, object, string"

func (s *Schema) keyword(k string, v any, loc string) error {
	var err error
	switch k {
	case "type":
		switch v := v.(type) {
		case string:
			s.types = []string{v}
		case []any:
			for _, t := range v {
				t, ok := t.(string)
				if !ok {
					return fmt.Errorf("want a type name or an array of them")
				}
				s.types = append(s.types, t)
			}
		default:
			return fmt.Errorf("want a type name or an array of them")
		}
		for _, t := range s.types {
			if !slices.Contains(strings.Split(typeNames, ", "), t) {
				return fmt.Errorf("unknown type %q (want one of %s)", t, typeNames)
			}
		}
	case "enum":
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array")
		}
		s.enum = items
		s.enumErr = enumError(items)
	case "const":
		s.hasConst, s.constVal = true, v
	case "properties":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object")
		}
		s.props = make(map[string]*Schema, len(m))
		for name, sub := range m {
			if s.props[name], err = compile(sub, loc+"/properties/"+escape(name)); err != nil {
				return err
			}
		}
	case "required":
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array of strings")
		}
		for _, it := range items {
			name, ok := it.(string)
			if !ok {
				return fmt.Errorf("want an array of strings")
			}
			s.required = append(s.required, name)
		}
	case "additionalProperties":
		if b, ok := v.(bool); ok {
			s.addlFalse = !b
			return nil
		}
		s.addl, err = compile(v, loc+"/additionalProperties")
	case "items":
		s.items, err = compile(v, loc+"/items")
	case "minimum", "maximum":
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("want a number")
		}
		r, ok := new(big.Rat).SetString(n.String())
		if !ok {
			return fmt.Errorf("want a number")
		}
		if k == "minimum" {
			s.min = r
		} else {
			s.max = r
		}
	case "minLength", "maxLength", "minItems", "maxItems":
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || i < 0 {
			return fmt.Errorf("want a non-negative integer")
		}
		switch k {
		case "minLength":
			s.minLength = int(i)
		case "maxLength":
			s.maxLength = int(i)
		case "minItems":
			s.minItems = int(i)
		default:
			s.maxItems = int(i)
		}
	case "$ref", "$dynamicRef":
		return fmt.Errorf("refers to %v; tool schemas must be self-contained", v)
	case "$schema", "title", "description", "default", "examples", "$comment":
		// annotations: they do not constrain the instance
	default:
		return fmt.Errorf("keyword %q is outside the subset tool schemas may use (FR-VAL-01a: see package argschema)", k)
	}
	return err
}

// Error is a failed validation: each reason at its instance location, in
// a fixed order (a schema's keywords in the order below, an object's
// properties by name, an array's items by index).
type Error struct {
	Leaves []Leaf
}

// Leaf is one reason an instance fails, at a JSON Pointer into it ("" for
// the instance itself).
type Leaf struct {
	InstanceLocation, Message string
}

// Error words the reasons as fcpschema.DescribeError words jsonschema/v5's:
// `at /path: expected string, but got number`, at most three of them,
// then "and N more".
func (e *Error) Error() string {
	var leaves []string
	seen := map[string]bool{}
	for _, l := range e.Leaves {
		s := "at " + orRoot(l.InstanceLocation) + ": " + l.Message
		if !seen[s] {
			seen[s] = true
			leaves = append(leaves, s)
		}
	}
	const maxLeaves = 3
	if len(leaves) > maxLeaves {
		more := len(leaves) - maxLeaves
		leaves = append(leaves[:maxLeaves], fmt.Sprintf("and %d more", more))
	}
	return strings.Join(leaves, "; ")
}

// Validate checks v, a JSON value decoded with json.Number for numbers
// (as fcp.DecodeJSON decodes it). It returns nil or an *Error.
func (s *Schema) Validate(v any) error {
	var e Error
	s.validate(v, "", &e)
	if len(e.Leaves) == 0 {
		return nil
	}
	return &e
}

func (s *Schema) validate(v any, loc string, e *Error) {
	fail := func(format string, a ...any) {
		e.Leaves = append(e.Leaves, Leaf{loc, fmt.Sprintf(format, a...)})
	}
	if s.falseValue {
		fail("not allowed")
		return
	}
	if len(s.types) > 0 && !s.typeMatches(v) {
		fail("expected %s, but got %s", strings.Join(s.types, " or "), jsonType(v))
		return
	}
	if s.hasConst && !equal(v, s.constVal) {
		switch jsonType(s.constVal) {
		case "object", "array":
			fail("const failed")
		default:
			fail("value must be %#v", s.constVal)
		}
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(x any) bool { return equal(v, x) }) {
		fail("%s", s.enumErr)
	}
	switch v := v.(type) {
	case map[string]any:
		var missing []string
		for _, name := range s.required {
			if _, ok := v[name]; !ok {
				missing = append(missing, quote(name))
			}
		}
		if len(missing) > 0 {
			fail("missing properties: %s", strings.Join(missing, ", "))
		}
		var extra []string
		for _, name := range slices.Sorted(maps.Keys(v)) {
			if sub, ok := s.props[name]; ok {
				sub.validate(v[name], loc+"/"+escape(name), e)
				continue
			}
			extra = append(extra, name)
		}
		switch {
		case s.addlFalse && len(extra) > 0:
			quoted := make([]string, len(extra))
			for i, name := range extra {
				quoted[i] = quote(name)
			}
			fail("additionalProperties %s not allowed", strings.Join(quoted, ", "))
		case s.addl != nil:
			for _, name := range extra {
				s.addl.validate(v[name], loc+"/"+escape(name), e)
			}
		}
	case []any:
		if s.minItems >= 0 && len(v) < s.minItems {
			fail("minimum %d items required, but found %d items", s.minItems, len(v))
		}
		if s.maxItems >= 0 && len(v) > s.maxItems {
			fail("maximum %d items required, but found %d items", s.maxItems, len(v))
		}
		if s.items != nil {
			for i, item := range v {
				s.items.validate(item, fmt.Sprintf("%s/%d", loc, i), e)
			}
		}
	case string:
		n := utf8.RuneCountInString(v)
		if s.minLength >= 0 && n < s.minLength {
			fail("length must be >= %d, but got %d", s.minLength, n)
		}
		if s.maxLength >= 0 && n > s.maxLength {
			fail("length must be <= %d, but got %d", s.maxLength, n)
		}
	case json.Number:
		if s.min == nil && s.max == nil {
			break
		}
		r, _ := new(big.Rat).SetString(v.String())
		if s.min != nil && r.Cmp(s.min) < 0 {
			fail("must be >= %v but found %v", f64(s.min), v)
		}
		if s.max != nil && r.Cmp(s.max) > 0 {
			fail("must be <= %v but found %v", f64(s.max), v)
		}
	}
}

func (s *Schema) typeMatches(v any) bool {
	vt := jsonType(v)
	for _, t := range s.types {
		if t == vt {
			return true
		}
		if t == "integer" && vt == "number" {
			if r, ok := new(big.Rat).SetString(v.(json.Number).String()); ok && r.IsInt() {
				return true
			}
		}
	}
	return false
}

// jsonType names v's JSON type; every number is "number".
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	panic(fmt.Sprintf("argschema: %T is not a JSON value decoded with json.Number", v))
}

// equal is JSON equality: numbers by value, objects and arrays member by
// member.
func equal(a, b any) bool {
	if jsonType(a) != jsonType(b) {
		return false
	}
	switch a := a.(type) {
	case json.Number:
		x, okx := new(big.Rat).SetString(a.String())
		y, oky := new(big.Rat).SetString(b.(json.Number).String())
		return okx && oky && x.Cmp(y) == 0
	case []any:
		b := b.([]any)
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b := b.(map[string]any)
		if len(a) != len(b) {
			return false
		}
		for k, x := range a {
			y, ok := b[k]
			if !ok || !equal(x, y) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// enumError is v5's message for a failed enum.
func enumError(items []any) string {
	for _, it := range items {
		if t := jsonType(it); t == "object" || t == "array" {
			return "enum failed"
		}
	}
	if len(items) == 1 {
		return fmt.Sprintf("value must be %#v", items[0])
	}
	strs := make([]string, len(items))
	for i, it := range items {
		strs[i] = fmt.Sprintf("%#v", it)
	}
	return "value must be one of " + strings.Join(strs, ", ")
}

func f64(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// quote is v5's quoting of a property name: 'name'.
func quote(s string) string {
	s = fmt.Sprintf("%q", s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// escape is v5's JSON Pointer token for a property name.
func escape(token string) string {
	token = strings.ReplaceAll(token, "~", "~0")
	token = strings.ReplaceAll(token, "/", "~1")
	return url.PathEscape(token)
}

func orRoot(loc string) string {
	if loc == "" {
		return "/"
	}
	return loc
}
