package writefile

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// args is the typed form of the call's arguments (FR-REG-02); the raw JSON
// is not consulted after parsing.
type args struct {
	Path    string
	Content string
}

// parseArgs is the single parse boundary. Keys match exactly, as with
// serde, and unknown keys are rejected, as the schema's
// additionalProperties: false does. A path that cannot name a file (empty,
// or ending in "/") is BadArgs.
func parseArgs(raw json.RawMessage) (args, error) {
	var a args
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return a, badArgs(`arguments must be a JSON object such as {"path":"notes.txt","content":"hello\n"}`)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k != "path" && k != "content" {
			return a, badArgs(`unknown argument %q; write_file takes only "path" and "content"`, k)
		}
	}
	for _, f := range []struct {
		key, example string
		dst          *string
	}{
		{"path", `"src/new.rs"`, &a.Path},
		{"content", `"hello\n"`, &a.Content},
	} {
		v, ok := fields[f.key]
		if !ok {
			return a, badArgs("missing required argument %q; send it as a string, e.g. %s", f.key, f.example)
		}
		if err := json.Unmarshal(v, f.dst); err != nil || isNull(v) {
			return a, badArgs("%q must be a string, e.g. %s", f.key, f.example)
		}
	}
	if a.Path == "" || strings.HasSuffix(a.Path, "/") {
		return a, badArgs("path %q does not name a file; send a file path such as \"src/new.rs\"", a.Path)
	}
	return a, nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

func badArgs(format string, a ...any) *toolerr.Error {
	return toolerr.New(toolerr.BadArgs, format, a...)
}
