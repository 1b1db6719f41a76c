package mutants

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/reference"
)

// A mutant that wraps tools changes their calls only (the suite runs it
// on the cases that call those tools); one that does not is an engine,
// TUI, summary or journal part and says where it runs (its Specs, or Run,
// or a Process). Every mutant's Specs and Breaks agree.
func TestTable(t *testing.T) {
	for _, m := range All() {
		if m.Options.WrapTool != nil && len(m.Tools()) == 0 && len(m.Run) == 0 {
			t.Errorf("%s wraps tools but changes no tool call: Tools() is empty", m.Name)
		}
		parts := reference.Options{Executor: m.Options.Executor, TUI: m.Options.TUI, RecoverPrompt: m.Options.RecoverPrompt}
		if m.Options.WrapTool == nil && reflect.ValueOf(parts).IsZero() && !m.Process &&
			m.Options.WrapJournal == nil && m.Options.AfterRecovery == nil && m.Options.NewSandbox == nil &&
			m.Options.Definitions == nil {
			t.Errorf("%s breaks nothing: no wrapper, hook or process", m.Name)
		}
		for _, id := range m.Breaks {
			spec, _, ok := strings.Cut(id, ":")
			if !ok || !slices.Contains(m.Specs, spec) {
				t.Errorf("%s: Breaks %q is not \"spec:ID\" with a spec of %v", m.Name, id, m.Specs)
			}
		}
	}
	if got := mustLookup(t, "dir-size").Tools(); !slices.Equal(got, []string{"list_directory"}) {
		t.Errorf("dir-size Tools() = %v, want [list_directory]", got)
	}
}

func TestCombine(t *testing.T) {
	opts, err := Combine("dir-size", "read-file-no-range-end-clamp")
	if err != nil {
		t.Fatal(err)
	}
	got := Mutant{Options: opts}.Tools()
	if !slices.Equal(got, []string{"list_directory", "read_file"}) {
		t.Errorf("combined Tools() = %v, want [list_directory read_file]", got)
	}
	if _, err := Combine("no-such-mutant"); err == nil || !strings.Contains(err.Error(), "dir-size") {
		t.Errorf("Combine of an unknown name: %v, want an error listing the mutants", err)
	}
}

func mustLookup(t *testing.T, name string) Mutant {
	t.Helper()
	m, ok := Lookup(name)
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	return m
}
