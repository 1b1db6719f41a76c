package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/forge-conform/forge-conform/spec/anchor"
)

// anchorsMember is how a rewritten requirement object holds its anchors:
// the last member, one anchor per line.
const anchorsMember = ",\n      \"anchors\": ["

// RewriteAnchors returns a catalog file (spec/catalog/NAME.json, indented by
// two spaces) with the anchors of the requirements named in anchors
// replaced; every other byte stays as it was. The anchors member is
// written last in its object, one anchor per line.
func RewriteAnchors(file []byte, anchors map[string][]anchor.Anchor) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(file))
	if err := seekRequirements(dec); err != nil {
		return nil, fmt.Errorf("rewrite anchors: %w (want a catalog file with a requirements array)", err)
	}
	var out bytes.Buffer
	done := 0
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("rewrite anchors: %w", err)
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		var r struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("rewrite anchors: %w", err)
		}
		as, ok := anchors[r.ID]
		if !ok {
			continue
		}
		obj, err := withAnchors(string(raw), as)
		if err != nil {
			return nil, fmt.Errorf("rewrite anchors of %s: %w", r.ID, err)
		}
		out.Write(file[done:start])
		out.WriteString(obj)
		done = end
	}
	out.Write(file[done:])
	return out.Bytes(), nil
}

func seekRequirements(dec *json.Decoder) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t == "requirements" {
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return fmt.Errorf("requirements is not an array")
			}
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return fmt.Errorf("no requirements member")
}

// withAnchors replaces or appends the anchors member of one object.
func withAnchors(obj string, as []anchor.Anchor) (string, error) {
	closing := strings.LastIndex(obj, "\n")
	if closing < 0 || !strings.HasSuffix(obj, "}") {
		return "", fmt.Errorf("requirement object is not indented (format the catalog with two-space indentation)")
	}
	body := obj[:closing]
	if i := strings.Index(body, anchorsMember); i >= 0 {
		body = body[:i]
	} else if strings.Contains(body, `"anchors"`) {
		return "", fmt.Errorf("anchors member is not the last one: move it to the end of the object")
	}
	if len(as) == 0 {
		return body + obj[closing:], nil
	}
	var b strings.Builder
	b.WriteString(body)
	b.WriteString(anchorsMember)
	for i, a := range as {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n        ")
		b.WriteString(anchorLine(a))
	}
	b.WriteString("\n      ]")
	b.WriteString(obj[closing:])
	return b.String(), nil
}

func anchorLine(a anchor.Anchor) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	s := fmt.Sprintf(`{"document": %s, "section": %s, "by": %s, "sentence": %d`, q(a.Document), q(a.Section), q(a.By), a.Sentence)
	if a.Through != 0 {
		s += fmt.Sprintf(`, "through": %d`, a.Through)
	}
	return s + fmt.Sprintf(`, "fingerprint": %s}`, q(a.Fingerprint))
}
