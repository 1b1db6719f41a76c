package tool

import (
	"math"
	"strconv"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
)

// Timeouts mirrors the [tools.timeouts] table (CFG-TMO-01), in seconds.
// Fractions are accepted (0.5 is half a second).
type Timeouts struct {
	DefaultSeconds        float64 `json:"default_seconds"`
	FileOperationsSeconds float64 `json:"file_operations_seconds"`
	ShellCommandsSeconds  float64 `json:"shell_commands_seconds"`
}

// DefaultTimeouts returns CFG-TMO-01's built-in values.
func DefaultTimeouts() Timeouts {
	return Timeouts{DefaultSeconds: 30, FileOperationsSeconds: 30, ShellCommandsSeconds: 300}
}

// LoadTimeouts decodes [tools.timeouts] over DefaultTimeouts. A key that is
// missing, not a number, zero or negative keeps its default, so a call always
// has a usable limit; a malformed table keeps every default.
func LoadTimeouts(cfg config.Config) Timeouts {
	def := DefaultTimeouts()
	var raw struct {
		DefaultSeconds        *float64 `json:"default_seconds"`
		FileOperationsSeconds *float64 `json:"file_operations_seconds"`
		ShellCommandsSeconds  *float64 `json:"shell_commands_seconds"`
	}
	if cfg.Table("timeouts", &raw) != nil {
		return def
	}
	pick := func(v *float64, d float64) float64 {
		if v == nil || !(*v > 0) || math.IsInf(*v, 1) {
			return d
		}
		return *v
	}
	return Timeouts{
		DefaultSeconds:        pick(raw.DefaultSeconds, def.DefaultSeconds),
		FileOperationsSeconds: pick(raw.FileOperationsSeconds, def.FileOperationsSeconds),
		ShellCommandsSeconds:  pick(raw.ShellCommandsSeconds, def.ShellCommandsSeconds),
	}
}

// Seconds converts a number of seconds to a Duration, saturating at the
// largest Duration and rounding up to at least one nanosecond.
func Seconds(s float64) time.Duration {
	if s*float64(time.Second) >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(time.Duration(s*float64(time.Second)), 1)
}

// FileOperationsTimeout is the limit of a file tool's call:
// [tools.timeouts] file_operations_seconds (default 30 s).
func FileOperationsTimeout(cfg config.Config) time.Duration {
	return Seconds(LoadTimeouts(cfg).FileOperationsSeconds)
}

// DefaultTimeout is the limit of a call to a tool without a Timeout method
// (ctx.default_timeout, FR-EXE-03): [tools.timeouts] default_seconds
// (default 30 s).
func DefaultTimeout(cfg config.Config) time.Duration {
	return Seconds(LoadTimeouts(cfg).DefaultSeconds)
}

// Timeouter is implemented by tools with their own limit (executor.timeout(),
// FR-EXE-03, CFG-TMO-01a).
type Timeouter interface {
	Timeout(cfg config.Config) time.Duration
}

// formatSeconds renders d as seconds for a Timeout message: "30s", "0.25s".
func formatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
