package fcp

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"unicode/utf8"
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
	SchemaCommon              = "common.json"
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
