package readfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Config mirrors the [tools.read_file] table (CFG-READ-01).
type Config struct {
	// MaxFileReadBytes bounds a whole-file text read (read_limit, I-RF-03).
	MaxFileReadBytes int64 `json:"max_file_read_bytes"`
	// MaxScanBytes bounds how far a ranged read may scan (I-RF-04).
	MaxScanBytes int64 `json:"max_scan_bytes"`
}

// DefaultConfig returns the built-in defaults of CFG-READ-01, used for every
// key the [tools.read_file] table leaves out.
func DefaultConfig() Config {
	return Config{MaxFileReadBytes: 204800, MaxScanBytes: 2097152}
}

// loadConfig decodes [tools.read_file] over the built-in defaults.
func loadConfig(c config.Config) (Config, error) {
	cfg := DefaultConfig()
	if err := c.Table(Name, &cfg); err != nil {
		return cfg, toolerr.Failed(Name, "invalid configuration: %v; fix the [tools.read_file] table", err)
	}
	if cfg.MaxFileReadBytes < 1 {
		return cfg, toolerr.Failed(Name, "invalid configuration: [tools.read_file] max_file_read_bytes is %d; set it to 1 or more", cfg.MaxFileReadBytes)
	}
	if cfg.MaxScanBytes < 1 {
		return cfg, toolerr.Failed(Name, "invalid configuration: [tools.read_file] max_scan_bytes is %d; set it to 1 or more", cfg.MaxScanBytes)
	}
	return cfg, nil
}

// args is the typed form of the call's arguments (FR-REG-02). A nil field
// is an omitted argument; the raw JSON is not consulted after parsing.
type args struct {
	Path      string
	StartLine *uint32
	EndLine   *uint32
}

// parseArgs is the single parse boundary and applies the argument rules of
// §3.6.8 (start_line <= end_line). Keys match exactly, as with serde; unknown
// keys are ignored, as the schema allows them. A null optional argument
// counts as omitted, as serde's Option does. Line numbers are u32 in the
// SRD, so values above 4294967295 are BadArgs.
func parseArgs(raw json.RawMessage) (args, error) {
	var a args
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return a, badArgs(`arguments must be a JSON object such as {"path":"README.md"}`)
	}
	p, ok := fields["path"]
	if !ok {
		return a, badArgs(`missing required argument "path"; send the file to read, e.g. {"path":"README.md"}`)
	}
	if err := json.Unmarshal(p, &a.Path); err != nil || isNull(p) {
		return a, badArgs(`"path" must be a string naming a file, e.g. "src/main.rs"`)
	}
	for _, n := range []struct {
		key string
		dst **uint32
	}{
		{"start_line", &a.StartLine},
		{"end_line", &a.EndLine},
	} {
		v, ok := fields[n.key]
		if !ok || isNull(v) {
			continue
		}
		x, err := parseLine(v)
		if err != nil {
			return a, badArgs("%q must be a line number from 1 to %d, not %s", n.key, uint32(math.MaxUint32), v)
		}
		*n.dst = &x
	}
	if a.StartLine != nil && a.EndLine != nil && *a.StartLine > *a.EndLine {
		return a, badArgs("start_line %d is after end_line %d; send start_line <= end_line", *a.StartLine, *a.EndLine)
	}
	return a, nil
}

// parseLine accepts a JSON integer literal from 1 to 2^32-1. Like serde's
// u32 it rejects fractions and exponents ("1.0").
func parseLine(v json.RawMessage) (uint32, error) {
	var num json.Number
	if err := json.Unmarshal(v, &num); err != nil || !bytes.Equal(bytes.TrimSpace(v), []byte(num.String())) {
		return 0, fmt.Errorf("not a number")
	}
	x, err := strconv.ParseUint(num.String(), 10, 32)
	if err != nil {
		return 0, err
	}
	if x < 1 {
		return 0, fmt.Errorf("below 1")
	}
	return uint32(x), nil
}

// ranged reports whether the call names a line range.
func (a args) ranged() bool { return a.StartLine != nil || a.EndLine != nil }

// lineRange returns the effective 1-based inclusive range; end 0 means
// "through EOF".
func (a args) lineRange() (start, end uint64) {
	start = 1
	if a.StartLine != nil {
		start = uint64(*a.StartLine)
	}
	if a.EndLine != nil {
		end = uint64(*a.EndLine)
	}
	return start, end
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

func badArgs(format string, a ...any) *toolerr.Error {
	return toolerr.New(toolerr.BadArgs, format, a...)
}
