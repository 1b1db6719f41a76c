//go:build unix

package main

import (
	"os/exec"
	"strings"

	"github.com/forge-conform/forge-conform/impl/readings"
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
//   - impl/tools/searchfiles with rg's tree mode (FCP/1, max_files
//     100,000: tree.go);
//   - impl/sandbox under its three readings (options.go), impl/lossy
//     under I-LD-01=per-byte (PerByte), impl/executor/sanitize under
//     I-EXE-12's neutralize and drop-controls (the control pictures and
//     the lone controls dropped: Stream.text), impl/lp1 under Forge's
//     three LP1 readings (Options: empty sections, an empty match with an
//     occurrence, final_newline kept through a section), impl/executor
//     (and below) under Forge's texts and plan and the stricter prompt
//     mode (ForgeText, ForgePlan, PromptUnlisted);
//   - the complexity cases, for the packages on the path they measure.
func scopedStages() []stage {
	sfSkip := []string{"search_files/fuzzy-*", "search_files/backend-native-explicit", "search_files/config-bad-backend"}
	// readings: the cases matching globs under the readings rs, for the
	// mutants of pkg.
	readings := func(pkg string, rs []string, globs ...string) stage {
		args := []string{"--golden-strict=false"}
		for _, r := range rs {
			args = append(args, "--reading", r)
		}
		return stage{name: "readings " + strings.Join(rs, ", "), pkgs: []string{pkg}, globs: globs,
			args: func(string) []string { return args }}
	}
	// The executor runs (and sanitizes output) in turns and in the
	// tool_executor cases' direct calls.
	sanitized := []string{"tool_executor/*", "*/turn-*"}
	backend := func(name string, skip ...string) stage {
		return stage{
			name:  "search_files backend " + name,
			pkgs:  []string{"impl/tools/searchfiles"},
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
			pkgs:  []string{"impl/tools/writefile"},
			globs: []string{"write_file/*"},
			args: func(string) []string {
				return []string{"--golden-strict=false", "--reading", "I-WR-03=create-new"}
			},
		},
		{
			// Codex's list_dir schema and argument decoding take another
			// path under this reading (no additionalProperties: false).
			name:  "reading I-CX-01=ignore-unknown",
			pkgs:  []string{"impl/tools/codexlistdir"},
			globs: []string{"codex_list_dir/*"},
			args: func(string) []string {
				return []string{"--golden-strict=false", "--reading", "I-CX-01=ignore-unknown"}
			},
		},
		{
			// The sandbox's readings (impl/sandbox/options.go): Rust
			// globset's denied patterns, Forge's denials, control
			// characters refused. Only a run that takes them reaches
			// their code; the corpus passes under all three at once.
			name:  "readings I-SBX-03=globset, I-SBX-05=forge, I-SBX-06=reject-control",
			pkgs:  []string{"impl/sandbox"},
			globs: []string{"*"},
			args: func(string) []string {
				return []string{"--golden-strict=false", "--reading", "I-SBX-03=globset", "--reading", "I-SBX-05=forge",
					"--reading", "I-SBX-06=reject-control"}
			},
		},
		{
			// impl/lossy's per-byte conversion (PerByte) serves only this
			// reading of ill-formed names.
			name:  "reading I-LD-01=per-byte",
			pkgs:  []string{"impl/lossy"},
			globs: []string{"list_directory/*", "search_files/*", "codex_list_dir/*"},
			args: func(string) []string {
				return []string{"--golden-strict=false", "--reading", "I-LD-01=per-byte"}
			},
		},
		readings("impl/executor/sanitize", []string{"I-EXE-12=neutralize"}, sanitized...),
		readings("impl/executor/sanitize", []string{"I-EXE-12=drop-controls"}, sanitized...),
		readings("impl/lp1", []string{"I-LP-01=accepted", "I-LP-09=applied", "I-LP-11=preserved"}, "lp1/*", "tool_executor/*patch*"),
		readings("impl/executor", []string{"I-EXE-07=forge-texts", "I-EXE-08=size-first", "I-EXE-23=prompt-read-only"}, sanitized...),
		backend("rg"),
		backend("ugrep", "search_files/regex-empty-matches"),
		{
			// rg's tree mode (impl/tools/searchfiles/tree.go) runs only on
			// the real filesystem (FCP/1) for a max_files of at least
			// treeMinFiles; the cases that set max_files themselves, or
			// break the configuration on purpose, are left out.
			name:  "search_files backend rg, tree mode",
			pkgs:  []string{"impl/tools/searchfiles"},
			needs: "rg",
			globs: []string{"search_files/*"},
			skips: append(append([]string{}, sfSkip...), "search_files/cap-max-files-*", "search_files/max-files-config",
				"search_files/config-bad-type", "search_files/sort-scaling"),
			args: func(bin string) []string {
				return []string{"--binary", bin + " ref", "--golden-strict=false", "--config",
					`{"tools":{"search_files":{"backend":"rg","max_files":100000}}}`}
			},
		},
		{
			// The complexity cases measure a listing and a search at n and
			// 16n entries, alone (about 9 s of the whole fcp run): only
			// code on that path can change how the call's cost grows.
			name:  "complexity cases",
			pkgs:  complexityPackages(),
			globs: complexityCases(),
			args: func(bin string) []string {
				return []string{"--binary", bin + " ref", "--golden-strict=false"}
			},
		},
	}
}

// complexityCases are the cases of NFR-LD-PERF-02 and NFR-SF-PERF-02
// (I-LD-20, I-SF-30); the fcp run leaves them to the complexity stage.
func complexityCases() []string {
	return []string{"list_directory/sort-scaling", "search_files/sort-scaling"}
}

// complexityPackages are the packages on the path the complexity cases
// measure: the listing and the search, the file system they read, the
// names they convert, the sandbox every entry passes, the JSON result and
// the protocol server that writes it.
func complexityPackages() []string {
	return []string{"impl/tools/listdir", "impl/tools/searchfiles", "impl/fsys", "impl/lossy", "impl/sandbox",
		"impl/canonjson", "impl/fcpserver"}
}

// judges reports whether stage st judges the mutants of the package in
// directory rel (every stage but a scoped one judges all).
func (st stage) judges(rel string) bool {
	if len(st.pkgs) == 0 {
		return true
	}
	for _, p := range st.pkgs {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
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

// readingStages are the corpus under each reading of impl/readings alone,
// on the catalogs the reading names (the reference passes them all, as
// impl/readings' test checks), whatever -run says, as for a scoped stage:
// the code that serves a reading the SRD allows runs under that reading
// only. Coverage picks them: baseline runs each with the instrumented
// reference; a mutant in statements no other stage executes runs the
// reading runs that execute them (only a mutant none reaches, nor a killed
// process's case, is uncovered), and a mutant the other stages leave alive
// runs the reading runs that execute code in its file which the stages for
// every mutant do not (the reading's option is read on lines every run
// executes; a scoped stage may take it with another that hides it).
func readingStages() []stage {
	var out []stage
	for _, r := range readings.All() {
		globs := make([]string, len(r.Specs))
		for i, s := range r.Specs {
			globs[i] = s + "/*"
		}
		args := []string{"--golden-strict=false", "--reading", r.Key()}
		out = append(out, stage{name: "reading " + r.Key(), globs: globs, args: func(string) []string { return args }})
	}
	return out
}
