// Package mutants is the suite's self-test: deliberately broken variants of
// the reference implementation, each with the exact set of requirement IDs
// its defect breaks. The suite must fail those IDs and pass every other ID
// of the mutant's specs. It is the one mutant table: the Ginkgo suite
// (conformance/) and `forge-conform ref --mutant` read it.
//
// Most defects are wrappers (reference.Options.WrapTool) that rewrite a
// tool's arguments, context, filesystem, conversation or result from
// outside, so the tools themselves carry no test-only code. Defects the
// engine decides before or around a tool's Execute (modes, limits, the
// planner, sanitization of the stream, truncation, summaries) give the
// engine other parts (reference.Options.Executor, executor.Options:
// reordered or replaced planner steps, batch handlers, a stream sanitizer,
// a truncation, a summarizer); the journal's wrap it (WrapJournal,
// AfterRecovery); recovery's decides when to prompt (RecoverPrompt); the
// TUI's draw with other parts (TUI, tui.Look). Each says why no wrapper of
// a tool can express it; no production code holds a defect.
package mutants

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// Mutant is one deliberately broken reference.
type Mutant struct {
	// Name is the mutant's name on the command line (ref --mutant NAME).
	Name string
	// Doc says what the defect is.
	Doc string
	// Specs are the catalogs whose cases the mutant must be run on.
	Specs []string
	// Breaks are the IDs the defect breaks, "spec:ID": exactly the IDs of
	// Specs a run of the mutant must fail; every other ID of Specs must
	// not fail or error.
	Breaks []string
	// Options build the mutant: reference.New(m.Options).
	Options reference.Options
	// Run, when set, are the case globs the mutant runs (default: every
	// case of Specs); Breaks and the IDs that must pass are then those of
	// these cases.
	Run []string
	// Process: the mutant's cases crash the implementation's process, so
	// it runs as a separate process, `forge-conform ref --mutant NAME`,
	// through FCP/1 (the in-process target skips those cases).
	Process bool
	// Strict: the defect breaks only SHOULD or MAY requirements, whose
	// failures are warnings; the mutant's run is --strict, so that they
	// fail (give Run too, or advice checks of other cases fail as well).
	Strict bool
}

// All returns the mutants, sorted by name.
func All() []Mutant {
	ms := []Mutant{
		{
			Name: "no-group-kill", Doc: "run_command kills only the process it started on timeout or cancel, not its process group",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/turn-*"},
			Breaks:  ids("tool_executor", "FR-EXE-05"),
			Options: wrap(onCommand(noGroupKill)),
		},
		{
			Name: "dropped-chunk", Doc: "run_command loses the stdout chunk that carries a call's 64 KiB-th byte",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/turn-*"},
			Breaks:  ids("tool_executor", "FR-OUT-01", "IT-CMD-01"),
			Options: wrap(onCommand(dropChunk)),
		},
		{
			Name: "follow-symlinks", Doc: "list_directory types entries with stat, following symlinks",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "FR-LD-VAL-09", "LD-ENT-01", "NFR-LD-SEC-03", "T-LD-01", "T-LD-07", "T-LD-08"),
			Options: wrap(onTool("list_directory", followSymlinks)),
		},
		{
			Name: "breadth-first", Doc: "list_directory lists level by level instead of depth-first pre-order",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "FR-LD-LST-05", "FR-LD-LST-07", "T-LD-05", "T-LD-09", "T-LD-12"),
			Options: wrap(onTool("list_directory", breadthFirst)),
		},
		{
			Name: "traversal-order", Doc: `list_directory leaves entries in traversal order, without the final sort by path ("a/x" before "a-b")`,
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "FR-LD-OUT-01", "T-LD-01"),
			Options: wrap(onListing(traversalOrder)),
		},
		{
			Name: "dir-size", Doc: "list_directory reports a size for directories",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "LD-ENT-02", "T-LD-01", "T-LD-04", "T-LD-05", "T-LD-06", "T-LD-07", "T-LD-08", "T-LD-09", "T-LD-10", "T-LD-11", "T-LD-12"),
			Options: wrap(onListing(dirSize)),
		},
		{
			Name: "wrong-truncated-reason", Doc: "list_directory says max_entries when output-size truncation is due",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "FR-LD-OUT-07", "T-LD-06", "T-LD-14"),
			Options: wrap(onListing(wrongTruncatedReason)),
		},
		{
			Name: "html-escaping", Doc: "list_directory escapes <, > and & like Go's encoding/json",
			Specs:  []string{"list_directory"},
			Breaks: ids("list_directory", "FR-LD-OUT-02a"),
			Options: wrap(onTool("list_directory", func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
				return rewriteWithinBudget(inner, ctx, args, c, htmlEscape)
			})),
		},
		{
			Name: "budget-off-by-one", Doc: "list_directory allows effective_max+1 bytes of output",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "FR-LD-OUT-03", "FR-LD-OUT-06", "T-LD-06", "T-LD-13", "T-LD-14"),
			Options: wrap(onTool("list_directory", budgetPlusOne)),
		},
		{
			Name: "traverse-hidden", Doc: "list_directory descends into hidden directories it does not list",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "FR-LD-LST-06", "T-LD-11"),
			Options: wrap(onTool("list_directory", traverseHidden)),
		},

		{
			Name: "read-file-sniff-whole-file", Doc: "read_file runs binary detection on the whole file",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "RF-SNIFF-01"),
			Options: wrap(onTool("read_file", sniffWholeFile)),
		},
		{
			Name: "read-file-no-range-end-clamp", Doc: "read_file fails an end_line past the end of the file",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "T-READ-01"),
			Options: wrap(onTool("read_file", noRangeEndClamp)),
		},
		{
			Name: "read-file-no-cache-record", Doc: "read_file does not record its reads for apply_patch",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "FR-TOOL-PATCH-01", "FR-TOOL-PATCH-02c", "T-PATCH-01"),
			Options: wrap(onTool("read_file", noSession)),
		},
		{
			Name: "read-file-binary-over-budget", Doc: "read_file's binary output exceeds output_limit by one base64 quad",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "FR-TOOL-READ-01b"),
			Options: wrap(onTool("read_file", binaryOverBudget)),
		},
		{
			Name: "read-file-budget-off-by-one", Doc: "read_file allows effective_max+1 bytes of output",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "FR-TOOL-READ-01b", "FR-TOOL-READ-01"),
			Options: wrap(onTool("read_file", budgetPlusOne)),
		},
		{
			Name: "write-file-overwrite", Doc: "write_file replaces an existing file",
			Specs:   []string{"write_file"},
			Breaks:  ids("write_file", "FR-WR-03", "T-WR-02", "WR-SYMLINK-01"),
			Options: wrap(onTool("write_file", overwrite)),
		},
		{
			Name: "write-file-follow-symlink", Doc: "write_file writes through a symlink",
			Specs:   []string{"write_file"},
			Breaks:  ids("write_file", "WR-SYMLINK-01"),
			Options: wrap(onTool("write_file", writeThroughSymlink)),
		},
		{
			Name: "write-file-claims-created", Doc: "write_file reports a file created when its create failed on a path under a regular file",
			Specs:   []string{"write_file"},
			Breaks:  ids("write_file", "FR-WR-05", "T-WR-01"),
			Options: wrap(onTool("write_file", claimCreated)),
		},
		{
			Name: "write-file-leaves-parents", Doc: "write_file makes the missing parent directories first and leaves them when the create fails",
			Specs:   []string{"write_file"},
			Breaks:  ids("write_file", "T-WR-01"),
			Options: wrap(onTool("write_file", parentsFirst)),
		},
		{
			Name: "apply-patch-skip-stale-check", Doc: "apply_patch does not check that a file was read and is unchanged",
			Specs: []string{"tool_executor"},
			// FR-TOOL-PATCH-02c by golden only: patch-after-write-without-read
			// accepts both readings of write_file's cache entry, and the
			// reference's own (no entry) refuses the patch.
			Breaks:  ids("tool_executor", "FR-TOOL-PATCH-02a", "FR-TOOL-PATCH-02b", "FR-TOOL-PATCH-02c", "FR-TOOL-PATCH-02d"),
			Options: wrap(onTool("apply_patch", skipStaleCheck)),
		},
		{
			Name: "apply-patch-non-atomic", Doc: "apply_patch writes files in place, one by one",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "FR-TOOL-PATCH-01a", "FR-TOOL-PATCH-02d", "T-PATCH-01"),
			Options: wrap(onTool("apply_patch", nonAtomic)),
		},
		{
			Name: "apply-patch-newline-on-create", Doc: "apply_patch adds a final newline to a created file",
			Specs:   []string{"tool_executor", "lp1"},
			Breaks:  append(ids("tool_executor", "AP-MISSING-01", "FR-TOOL-PATCH-01"), ids("lp1", "LP1-NL-08")...),
			Options: wrap(onTool("apply_patch", newlineOnCreate)),
		},
		{
			Name: "apply-patch-occurrence-from-end", Doc: "apply_patch counts @@occ occurrences from the end",
			Specs:   []string{"lp1"},
			Breaks:  ids("lp1", "LP1-SEM-06", "LP1-CMD-10", "LP1-GRM-07"),
			Options: wrap(onTool("apply_patch", occFromEnd)),
		},
	}
	ms = append(ms, summaryMutants()...)
	ms = append(ms, durableMutants()...)
	ms = append(ms, tuiMutants()...)
	ms = append(ms, engineMutants()...)
	ms = append(ms, searchMutants()...)
	ms = append(ms, boundaryMutants()...)
	ms = append(ms, sandboxMutants()...)
	ms = append(ms, holeMutants()...)
	ms = append(ms, untestableMutants()...)
	ms = append(ms, complexityMutants()...)
	ms = append(ms, sessionMutants()...)
	ms = append(ms, sanitizeMutants()...)
	ms = append(ms, processMutants()...)
	ms = append(ms, holes3Mutants()...)
	ms = append(ms, mutationMutants()...)
	ms = append(ms, cfgSF03Mutants()...)
	ms = append(ms, timeoutMutants()...)
	ms = append(ms, envPatternMutants()...)
	ms = append(ms, controlsOnlyMutants()...)
	ms = append(ms, rollbackMutants()...)
	ms = append(ms, innerGlobstarMutants()...)
	ms = append(ms, resumeApproveMutants()...)
	ms = append(ms, definitionsMutants()...)
	ms = append(ms, holesH1Mutants()...)
	ms = append(ms, escapeSelectMutants()...)
	ms = append(ms, argsDefaultMutants()...)
	ms = append(ms, abortMutants()...)
	ms = append(ms, ldHoleMutants()...)
	ms = append(ms, exeHoleMutants()...)
	ms = append(ms, sanitizeEndsMutants()...)
	ms = append(ms, rfHolesMutants()...)
	ms = append(ms, sfHoleMutants()...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
	return ms
}

// Combine returns the options of a reference with the defects of every
// mutant named: their tool wrappers applied in order, and the last one's
// sandbox builder (NewSandbox) and definitions rewrite (Definitions):
// several bugs in one implementation.
func Combine(names ...string) (reference.Options, error) {
	var wraps []func(tool.Tool) tool.Tool
	var opts reference.Options
	for _, name := range names {
		m, ok := Lookup(name)
		if !ok {
			return reference.Options{}, fmt.Errorf("unknown mutant %q (want one of %s)", name, strings.Join(Names(), ", "))
		}
		if m.Options.WrapTool != nil {
			wraps = append(wraps, m.Options.WrapTool)
		}
		if m.Options.NewSandbox != nil {
			opts.NewSandbox = m.Options.NewSandbox
		}
		if m.Options.Definitions != nil {
			opts.Definitions = m.Options.Definitions
		}
	}
	opts.WrapTool = func(t tool.Tool) tool.Tool {
		for _, w := range wraps {
			t = w(t)
		}
		return t
	}
	return opts, nil
}

// Tools returns the names of the tools whose calls the mutant changes,
// sorted; nil when it changes something else than tool calls (then every
// case of its Specs can see the defect). A case that calls none of these
// tools gets the reference's answers, so the suite runs the mutant only on
// the cases that call one of them.
func (m Mutant) Tools() []string {
	if m.Options.WrapTool == nil {
		return nil
	}
	ref, err := reference.New(m.Options)
	if err != nil {
		return nil
	}
	reg := ref.Registry()
	var out []string
	for _, name := range reg.Names() {
		t, err := reg.Lookup(name)
		if err != nil {
			return nil
		}
		if _, ok := t.(wrapped); ok {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil
	}
	sort.Strings(out)
	return out
}

// Lookup returns the mutant called name.
func Lookup(name string) (Mutant, bool) {
	for _, m := range All() {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}

// Names lists the mutants' names, sorted.
func Names() []string {
	var out []string
	for _, m := range All() {
		out = append(out, m.Name)
	}
	return slices.Clip(out)
}

func wrap(w func(tool.Tool) tool.Tool) reference.Options {
	return reference.Options{WrapTool: w}
}

// ids qualifies bare IDs of one catalog: "spec:ID".
func ids(spec string, bare ...string) []string {
	out := make([]string, len(bare))
	for i, id := range bare {
		out[i] = spec + ":" + id
	}
	return out
}

// noSession runs the tool outside the conversation, so read_file records
// nothing that apply_patch could find.
func noSession(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	cc := *c
	cc.Session = nil
	out, err := inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}
