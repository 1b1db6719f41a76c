// Package config holds the [tools] configuration of a call as FCP/1 carries
// it: the SRDs' TOML tables ([tools], [tools.sandbox], [tools.list_directory],
// ...) mirrored as one JSON object. Each tool decodes its own table; absent
// tables and keys take the SRDs' built-in defaults.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Config is the parsed "config" object of a call.
type Config struct {
	// Tools maps a table name under [tools] ("sandbox", "list_directory", ...)
	// to its raw JSON. Scalar keys of [tools] itself (mode, ...) are kept too.
	Tools map[string]json.RawMessage
}

// Parse reads a config object. An empty or null input is the empty config.
func Parse(raw json.RawMessage) (Config, error) {
	var c Config
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return c, nil
	}
	var top struct {
		Tools map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return c, fmt.Errorf("config: %w (want {\"tools\":{...}})", err)
	}
	c.Tools = top.Tools
	return c, nil
}

// Table decodes the table [tools.<name>] into v, which must hold the
// defaults already: keys absent from the table leave v's fields unchanged.
// An absent table is not an error.
func (c Config) Table(name string, v any) error {
	raw, ok := c.Tools[name]
	if !ok || len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("config [tools.%s]: %w", name, err)
	}
	return nil
}

// Has reports whether the table [tools.<name>] is present.
func (c Config) Has(name string) bool {
	_, ok := c.Tools[name]
	return ok
}
