package check

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// table returns config.tools.<name> as a map (nil if absent).
func table(cfg map[string]any, name string) map[string]any {
	tools, _ := cfg["tools"].(map[string]any)
	t, _ := tools[name].(map[string]any)
	return t
}

// boolOf returns the first boolean found among the candidates, else def.
func boolOf(def bool, cands ...any) bool {
	for _, c := range cands {
		if b, ok := c.(bool); ok {
			return b
		}
	}
	return def
}

// floatOf returns the first number found among the candidates, else def.
func floatOf(def float64, cands ...any) float64 {
	for _, c := range cands {
		switch n := c.(type) {
		case json.Number:
			if v, err := n.Float64(); err == nil {
				return v
			}
		case float64:
			return n
		case int64:
			return float64(n)
		case int:
			return float64(n)
		}
	}
	return def
}

// intOf returns the first integer found among the candidates, else def.
func intOf(def int64, cands ...any) int64 {
	for _, c := range cands {
		switch n := c.(type) {
		case json.Number:
			if v, err := n.Int64(); err == nil {
				return v
			}
		case float64:
			return int64(n)
		case int64:
			return n
		case int:
			return int64(n)
		}
	}
	return def
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
