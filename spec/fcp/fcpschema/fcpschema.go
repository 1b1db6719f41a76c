// Package fcpschema validates FCP/1 messages against the protocol's JSON
// Schemas (spec/fcp/schema, Draft 2020-12) with santhosh-tekuri/jsonschema/v5:
// the runner checks every message an implementation sends with it. It is
// kept apart from package fcp so that the reference implementation, which
// uses fcp's types, links no schema compiler it does not need (the
// jsonschema/v5 package compiles every draft's metaschema when a program
// starts).
package fcpschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Validator checks FCP/1 messages against the embedded schemas. Build it
// once with NewValidator; it is safe for concurrent use.
type Validator struct {
	schemas map[string]*jsonschema.Schema
}

// NewValidator compiles the embedded schemas.
func NewValidator() (*Validator, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("fcp: schema %s is not embedded; FCP schemas never load remote documents", u)
	}
	names := []string{fcp.SchemaCommon, fcp.SchemaRequest, fcp.SchemaHelloResponse, fcp.SchemaCallResponse,
		fcp.SchemaDefinitionsResponse, fcp.SchemaSummaryResponse, fcp.SchemaOKResponse, fcp.SchemaErrorResponse,
		fcp.SchemaTurnRequest, fcp.SchemaTurnOutput, fcp.SchemaScreenRequest, fcp.SchemaScreenResponse}
	for _, name := range names {
		data, err := fs.ReadFile(fcp.SchemaFS(), name)
		if err != nil {
			return nil, fmt.Errorf("fcp: embedded schema %s: %w", name, err)
		}
		if err := c.AddResource(fcp.SchemaBase+name, bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("fcp: schema %s: %w", name, err)
		}
	}
	v := &Validator{schemas: make(map[string]*jsonschema.Schema, len(names))}
	for _, name := range names[1:] {
		s, err := c.Compile(fcp.SchemaBase + name)
		if err != nil {
			return nil, fmt.Errorf("fcp: schema %s does not compile: %w", name, err)
		}
		v.schemas[name] = s
	}
	return v, nil
}

// ValidateRequest checks one request line (without its newline).
// The turn ops (turn, decide, cancel, tool_result) are checked against
// turn-request.json, screen against screen-request.json, every other op
// against request.json.
func (v *Validator) ValidateRequest(raw []byte) error {
	var head struct {
		Op string `json:"op"`
	}
	if json.Unmarshal(raw, &head) == nil && (slices.Contains(fcp.TurnOps(), head.Op) || head.Op == fcp.OpRecover) {
		return v.validate("request", fcp.SchemaTurnRequest, raw)
	}
	if json.Unmarshal(raw, &head) == nil && head.Op == fcp.OpScreen {
		return v.validate("request", fcp.SchemaScreenRequest, raw)
	}
	return v.validate("request", fcp.SchemaRequest, raw)
}

// ValidateTurnOutput checks one line a turn wrote (without its newline): an
// event or the turn's final response.
func (v *Validator) ValidateTurnOutput(raw []byte) error {
	return v.validate("turn output", fcp.SchemaTurnOutput, raw)
}

// ValidateResponse checks one response line (without its newline) as the
// answer to a request with the given op.
func (v *Validator) ValidateResponse(op string, raw []byte) error {
	return v.validate(fmt.Sprintf("response to %q", op), fcp.ResponseSchema(op), raw)
}

func (v *Validator) validate(what, schema string, raw []byte) error {
	doc, err := fcp.DecodeJSON(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := v.schemas[schema].Validate(doc); err != nil {
		return fmt.Errorf("%s does not match %s: %s", what, schema, DescribeError(err))
	}
	return nil
}

// DescribeError turns a jsonschema validation error into one short
// line naming each offending location, for example
// `at /error/kind: value must be one of "BadArgs", ...`. Other errors are
// returned as they are.
func DescribeError(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []string
	seen := map[string]bool{}
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			s := "at " + loc + ": " + leafMessage(e)
			if !seen[s] {
				seen[s] = true
				leaves = append(leaves, s)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	const maxLeaves = 3
	if len(leaves) > maxLeaves {
		more := len(leaves) - maxLeaves
		leaves = append(leaves[:maxLeaves], fmt.Sprintf("and %d more", more))
	}
	return strings.Join(leaves, "; ")
}

// leafMessage is the validator's message, made clearer where the schema
// uses "not" to forbid a member.
func leafMessage(e *jsonschema.ValidationError) string {
	if strings.HasSuffix(e.KeywordLocation, "/not") {
		return "must not be present here"
	}
	return e.Message
}
