package fcp

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

//go:embed schema/*.json
var schemaFiles embed.FS

// SchemaBase is the base URL of the FCP/1 schemas' $id. It does not
// resolve; the schemas are embedded and never fetched.
const SchemaBase = "https://forge-conform.invalid/fcp/1/"

// Schema file names, relative to SchemaBase and to spec/fcp/schema.
const (
	SchemaRequest             = "request.json"
	SchemaHelloResponse       = "hello-response.json"
	SchemaCallResponse        = "call-response.json"
	SchemaDefinitionsResponse = "definitions-response.json"
	SchemaSummaryResponse     = "summary-response.json"
	SchemaOKResponse          = "ok-response.json"
	SchemaErrorResponse       = "error-response.json"
	schemaCommon              = "common.json"
)

// SchemaFS returns the embedded JSON Schemas (Draft 2020-12) of FCP/1, the
// files of spec/fcp/schema.
func SchemaFS() fs.FS {
	sub, err := fs.Sub(schemaFiles, "schema")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return sub
}

// ResponseSchema names the schema a response to op must satisfy. An op this
// revision does not define can only be answered with an error response.
func ResponseSchema(op string) string {
	switch op {
	case OpHello:
		return SchemaHelloResponse
	case OpCall:
		return SchemaCallResponse
	case OpDefinitions:
		return SchemaDefinitionsResponse
	case OpSummary:
		return SchemaSummaryResponse
	case OpReset, OpBye, OpDecide, OpCancel, OpToolResult:
		return SchemaOKResponse
	case OpTurn, OpRecover:
		return SchemaTurnOutput
	case OpScreen:
		return SchemaScreenResponse
	default:
		return SchemaErrorResponse
	}
}

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
	names := []string{schemaCommon, SchemaRequest, SchemaHelloResponse, SchemaCallResponse,
		SchemaDefinitionsResponse, SchemaSummaryResponse, SchemaOKResponse, SchemaErrorResponse,
		SchemaTurnRequest, SchemaTurnOutput, SchemaScreenRequest, SchemaScreenResponse}
	for _, name := range names {
		data, err := schemaFiles.ReadFile("schema/" + name)
		if err != nil {
			return nil, fmt.Errorf("fcp: embedded schema %s: %w", name, err)
		}
		if err := c.AddResource(SchemaBase+name, bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("fcp: schema %s: %w", name, err)
		}
	}
	v := &Validator{schemas: make(map[string]*jsonschema.Schema, len(names))}
	for _, name := range names[1:] {
		s, err := c.Compile(SchemaBase + name)
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
	if json.Unmarshal(raw, &head) == nil && (slices.Contains(TurnOps(), head.Op) || head.Op == OpRecover) {
		return v.validate("request", SchemaTurnRequest, raw)
	}
	if json.Unmarshal(raw, &head) == nil && head.Op == OpScreen {
		return v.validate("request", SchemaScreenRequest, raw)
	}
	return v.validate("request", SchemaRequest, raw)
}

// ValidateTurnOutput checks one line a turn wrote (without its newline): an
// event or the turn's final response.
func (v *Validator) ValidateTurnOutput(raw []byte) error {
	return v.validate("turn output", SchemaTurnOutput, raw)
}

// ValidateResponse checks one response line (without its newline) as the
// answer to a request with the given op.
func (v *Validator) ValidateResponse(op string, raw []byte) error {
	return v.validate(fmt.Sprintf("response to %q", op), ResponseSchema(op), raw)
}

func (v *Validator) validate(what, schema string, raw []byte) error {
	doc, err := DecodeJSON(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := v.schemas[schema].Validate(doc); err != nil {
		return fmt.Errorf("%s does not match %s: %s", what, schema, DescribeSchemaError(err))
	}
	return nil
}

// DecodeJSON decodes one JSON value for schema validation: it must be valid
// UTF-8, hold exactly one value, and numbers are kept exact (json.Number).
func DecodeJSON(raw []byte) (any, error) {
	if !utf8.Valid(raw) {
		i := 0
		for i < len(raw) {
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return nil, fmt.Errorf("not valid UTF-8 (first bad byte 0x%02x at offset %d)", raw[i], i)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty, want one JSON object")
		}
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("not valid JSON: data after the value at offset %d", d.InputOffset())
	}
	return doc, nil
}

// DescribeSchemaError turns a jsonschema validation error into one short
// line naming each offending location, for example
// `at /error/kind: value must be one of "BadArgs", ...`. Other errors are
// returned as they are.
func DescribeSchemaError(err error) string {
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
