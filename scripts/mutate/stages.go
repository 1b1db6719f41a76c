//go:build unix

package main

import (
	"os/exec"
	"strings"
)

// scopedStages are runs that judge only the mutants of one package: code
// the default runs never reach, because it serves a reading the SRD allows
// (impl/readings) or a configuration the default leaves off.
//
//   - impl/tools/writefile under I-WR-03=create-new: Options.CreateNew
//     opens the target itself (writeNew), a path no other run takes;
//   - impl/tools/searchfiles with the rg and ugrep backends (CFG-SF-01;
//     I-SF-15: the same output as native), the search_files corpus less
//     .ci/run's sf_skip (cases that need the native backend by design, and
//     for ugrep regex-empty-matches). A backend missing from PATH drops its
//     run, said on stderr: its translation is then not judged;
//   - impl/tools/codexlistdir under I-CX-01=ignore-unknown: the schema
//     without additionalProperties and the lenient decoding;
//   - impl/sandbox under I-SBX-03=globset: denied patterns read as
//     globset does (globsetRegexp), the cases about denied patterns.
func scopedStages() []stage {
	sfSkip := []string{"search_files/fuzzy-*", "search_files/backend-native-explicit", "search_files/config-bad-backend"}
	backend := func(name string, skip ...string) stage {
		return stage{
			name:  "search_files backend " + name,
			pkg:   "impl/tools/searchfiles",
			needs: name,
			globs: []string{"search_files/*"},
			skips: append(append([]string{}, sfSkip...), skip...),
			args: func(string) []string {
				return []string{"--golden-strict=false", "--config", `{"tools":{"search_files":{"backend":"` + name + `"}}}`}
			},
		}
	}
	return []stage{
		{
			name:  "reading I-WR-03=create-new",
			pkg:   "impl/tools/writefile",
			globs: []string{"write_file/*"},
			args: func(string) []string {
				return []string{"--golden-strict=false", "--reading", "I-WR-03=create-new"}
			},
		},
		{
			// Codex's list_dir schema and argument decoding take another
			// path under this reading (no additionalProperties: false).
			name:  "reading I-CX-01=ignore-unknown",
			pkg:   "impl/tools/codexlistdir",
			globs: []string{"codex_list_dir/*"},
			args: func(string) []string {
				return []string{"--golden-strict=false", "--reading", "I-CX-01=ignore-unknown"}
			},
		},
		{
			// Denied patterns take globsetRegexp under this reading, not
			// doublestar: every validated path meets the default patterns,
			// and the denied-* cases tell what they match.
			name:  "reading I-SBX-03=globset",
			pkg:   "impl/sandbox",
			globs: []string{"*/*denied*"},
			args: func(string) []string {
				return []string{"--golden-strict=false", "--reading", "I-SBX-03=globset"}
			},
		},
		backend("rg"),
		backend("ugrep", "search_files/regex-empty-matches"),
	}
}

// judges reports whether stage st judges the mutants of the package in
// directory rel (every stage but a scoped one judges all).
func (st stage) judges(rel string) bool {
	return st.pkg == "" || rel == st.pkg || strings.HasPrefix(rel, st.pkg+"/")
}

// missing returns why st cannot run on this machine, or "".
func (st stage) missing() string {
	if st.needs == "" {
		return ""
	}
	if _, err := exec.LookPath(st.needs); err != nil {
		return st.needs + " is not on PATH (apt-get install -y ripgrep ugrep)"
	}
	return ""
}

// scoped reports whether a scoped stage judges a package being mutated.
func (h *harness) scoped(st stage) bool {
	for rel := range h.pkgs {
		if st.judges(rel) {
			return true
		}
	}
	return false
}
