// Package sandbox implements the path validation of TOOL_EXECUTOR_SRD.md
// §3.5 (FR-VAL-03..05). STUB: being implemented.
package sandbox

import "github.com/spf13/afero"

// Config mirrors [tools.sandbox] (CFG-SBX-01).
type Config struct {
	AllowedRoots         []string `json:"allowed_roots"`
	DeniedPatterns       []string `json:"denied_patterns"`
	AllowAbsolute        bool     `json:"allow_absolute"`
	IncludeDefaultDenies bool     `json:"include_default_denies"`
}

// DefaultConfig is the SRD's built-in [tools.sandbox].
func DefaultConfig() Config {
	return Config{AllowedRoots: []string{"."}, IncludeDefaultDenies: true}
}

// Sandbox validates paths.
type Sandbox struct{}

// New builds a sandbox; allowed roots are resolved against workingDir and canonicalized.
func New(fsys afero.Fs, cfg Config, workingDir string) (*Sandbox, error) { panic("stub") }

// Validate returns the canonical absolute path for path or a *toolerr.Error (SandboxViolation).
func (s *Sandbox) Validate(path string) (string, error) { panic("stub") }
