package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/internal/jsonwalk"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// cmdShow prints one case: where it is defined, its doc, the fixture as
// its file declares it, the request lines as the runner sends them, the
// expectation and the golden. With --requests DIR it materializes the
// fixture in DIR and prints only the JSON Lines to pipe into an
// implementation by hand.
func cmdShow(args []string, stdout io.Writer) (int, error) {
	flags := newFlagSet("show")
	dir := flags.String("requests", "", "materialize the fixture in DIR and print the request lines with its paths")
	config := flags.String("config", "", "JSON object merged over the case's config, as for a run")
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parse(flags, args); err != nil {
		return exitHarness, err
	}
	if name == "" {
		return exitHarness, usageError{"show: name a case, e.g. `forge-conform show list_directory/default-args` (see `forge-conform list`)"}
	}
	d, err := loadData()
	if err != nil {
		return exitHarness, err
	}
	c := d.corpus.Find(name)
	if c == nil {
		return exitHarness, usageError{fmt.Sprintf("show: no case %q: give the full name <spec>/<case> as `forge-conform list` prints it", name)}
	}
	if *config != "" && !json.Valid([]byte(*config)) {
		return exitHarness, usageError{"--config: not valid JSON"}
	}
	if *dir != "" {
		return showRequests(stdout, d, c, *dir, json.RawMessage(*config))
	}
	w := func(format string, a ...any) { fmt.Fprintf(stdout, format, a...) }
	w("case %s\n", c.FullName())
	w("defined at conformance/cases/%s:%d\n", c.File, c.Line)
	w("IDs: %s\n", strings.Join(c.IDs, " "))
	if len(c.Interpretations) > 0 {
		w("relies on: %s (spec/INTERPRETATIONS.md)\n", strings.Join(c.Interpretations, " "))
	}
	if c.Doc != "" {
		w("doc: %s\n", c.Doc)
	}
	w("op %s, tool %s\n", c.Op, c.Tool)
	if c.Fixture != "" {
		text, err := fs.ReadFile(fixtures.FS, c.Fixture+".fixture")
		if err != nil {
			return exitHarness, fmt.Errorf("fixture %q: %w", c.Fixture, err)
		}
		w("\nfixture %s (fixtures/%s.fixture; materialized as $ROOT):\n%s", c.Fixture, c.Fixture, indent(string(text)))
	}
	w("\nrequests, as the runner sends them after hello (and reset, when declared); seq and call ids vary:\n")
	for _, l := range runner.Script(c, fixture.Layout{}, json.RawMessage(*config)) {
		if l.Disk != nil {
			step, _ := json.Marshal(l.Disk)
			w("  (on disk, by the runner) %s\n", step)
			continue
		}
		var raw []byte
		if l.Turn != nil {
			raw, _ = json.Marshal(l.Turn)
		} else {
			raw, _ = json.Marshal(l.Request)
		}
		raw = readable(raw)
		if l.Fresh {
			w("  (after the crash, to a fresh process after hello) %s\n", raw)
			continue
		}
		w("  %s\n", raw)
	}
	if t := c.Turn; t != nil {
		showTurnUser(w, t)
	}
	e := c.Expect
	switch {
	case e.Turn != nil:
		raw, _ := json.MarshalIndent(e.Turn, "", "  ")
		w("\nexpectation over the turn (events, results in the history, chunks per stream; only what is listed is checked,\nplus the invariants every turn gets: spec/PROTOCOL.md §9):\n%s", indent(string(raw)+"\n"))
	case e.Text != nil && corpus.HasPaths(*e.Text):
		w("\nexpectation: this content, each $PATH(...) any spelling of its path (as written, relative or absolute):\n%s", indent(*e.Text+"\n"))
	case e.Text != nil:
		w("\nexpectation: exactly this content (%d bytes):\n%s", len(*e.Text), indent(*e.Text+"\n"))
	case e.Sanitized != nil:
		w("\nexpectation: this content, its control characters removed or neutralized (none left):\n%s", indent(*e.Sanitized+"\n"))
	case e.JSON != nil:
		var b bytes.Buffer
		_ = json.Indent(&b, e.JSON, "", "  ")
		w("\nexpectation: content matching this JSON (only the fields listed are compared):\n%s", indent(b.String()+"\n"))
	case e.Error != nil:
		raw, _ := json.MarshalIndent(e.Error, "", "  ")
		w("\nexpectation: this error:\n%s", indent(string(raw)+"\n"))
	}
	if e.Tree != nil {
		raw, _ := json.MarshalIndent(e.Tree, "", "  ")
		w("\nfixture tree after the call: these paths as stated, every other entry unchanged:\n%s", indent(string(raw)+"\n"))
	}
	if sc := c.Scaling; sc != nil {
		raw, _ := json.MarshalIndent(sc.Expect, "", "  ")
		w("\nscaling: the same request on fixture %s, %d times the entries, whose response must meet:\n%s", sc.Fixture, sc.Factor, indent(string(raw)+"\n"))
		w("then both calls are repeated and timed by the implementation's CPU time: growing more than %g-fold fails\n", sc.MaxRatio)
	}
	g, err := fs.ReadFile(golden.FS, c.Spec+"/"+c.Name+".golden")
	if err == nil {
		w("\ngolden (golden/%s/%s.golden):\n%s", c.Spec, c.Name, indent(string(g)+"\n"))
	} else if c.Durable() {
		w("\ngolden: none (a durability case's expectation is the whole check, I-JRN-12)\n")
	} else if c.Scaling != nil {
		w("\ngolden: none (a scaling case's outputs are megabytes: its expectations and the growth are the whole check)\n")
	} else if c.Observed() {
		w("\ngolden: none (a case that observes the process from outside: its expectation and observation are the whole check, I-EXE-30)\n")
	} else {
		w("\ngolden: none (run `forge-conform golden update`)\n")
	}
	if c.Turn != nil {
		// The runner answers a turn's events as they come: a pipe cannot.
		w("\nrun it: forge-conform --binary YOUR-IMPLEMENTATION --run %s -v (the runner plays the user above; a pipe of\n`show --requests` lines gives only the turn request, so confirmations wait for a decide that never comes)\n", c.FullName())
		return exitOK, nil
	}
	w("\nreplay by hand: forge-conform show %s --requests DIR | YOUR-IMPLEMENTATION, then rm -rf DIR\n", c.FullName())
	return exitOK, nil
}

// showRequests materializes c's fixture in dir and prints hello and the
// case's requests as JSON Lines with dir's paths.
func showRequests(stdout io.Writer, d *data, c *corpus.Case, dir string, config json.RawMessage) (int, error) {
	for _, st := range c.Before {
		if st.Call == nil {
			return exitHarness, fmt.Errorf("show --requests: %s changes files between its requests (before steps on disk), which JSON Lines cannot carry: check it with `forge-conform --binary CMD --run %s`", c.FullName(), c.FullName())
		}
	}
	if c.Durable() {
		return exitHarness, fmt.Errorf("show --requests: %s crashes the implementation and recovers in fresh processes, which one JSON Lines stream cannot carry: check it with `forge-conform --binary CMD --run %s`", c.FullName(), c.FullName())
	}
	layout := fixture.Layout{}
	if c.Fixture != "" {
		fx, ok := d.fixtures[c.Fixture]
		if !ok {
			return exitHarness, fmt.Errorf("case names fixture %q, which does not exist in fixtures/", c.Fixture)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return exitHarness, fmt.Errorf("--requests: %w", err)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return exitHarness, err
		}
		if layout, err = fx.Materialize(abs, fixture.Options{}); err != nil {
			return exitHarness, fmt.Errorf("--requests: %w (give a new or empty directory)", err)
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fcp.Request{FCP: fcp.Version, Op: fcp.OpHello}); err != nil {
		return exitHarness, err
	}
	for i, l := range runner.Script(c, layout, config) {
		if l.Turn != nil {
			req := *l.Turn
			req.Seq = int64(i + 1)
			if err := enc.Encode(req); err != nil {
				return exitHarness, err
			}
			continue
		}
		req := *l.Request
		req.Seq = int64(i + 1)
		if err := enc.Encode(req); err != nil {
			return exitHarness, err
		}
	}
	return exitOK, nil
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  ") + "\n"
}

// showTurnUser prints what the runner, playing the user, sends while a turn
// case runs (each request also carries "turn": the turn's seq).
func showTurnUser(w func(string, ...any), t *corpus.TurnSpec) {
	w("\nthe user, played by the runner while the turn runs (each request also carries \"turn\": the turn's seq):\n")
	if len(t.Decide) == 0 {
		w("  on every confirmation: {\"op\":\"decide\",\"decision\":\"approve_all\"}\n")
	}
	for i, d := range t.Decide {
		when := fmt.Sprintf("confirmation %d", i+1)
		if i == len(t.Decide)-1 {
			when = fmt.Sprintf("confirmation %d and any later one", i+1)
		}
		w("  on %s: %s\n", when, userRequest{Op: fcp.OpDecide, Decision: d.Decision, IDs: d.IDs})
	}
	if m := t.Cancel; m != nil {
		sel, _ := json.Marshal(m)
		w("  on the first event matching %s: {\"op\":\"cancel\"}\n", sel)
	}
	for _, id := range slices.Sorted(maps.Keys(t.ToolResults)) {
		r := t.ToolResults[id]
		w("  on the pending event: %s\n", userRequest{Op: fcp.OpToolResult, ID: id, Content: &r.Content, IsError: r.IsError})
	}
	if t.SlowReader {
		w("  reads output chunks slowly, so that the implementation's event channel fills up\n")
	}
	if t.PidsFile != "" {
		w("  afterwards: no process whose pid the commands wrote to $ROOT/%s may be alive\n", t.PidsFile)
	}
}

// userRequest is a request the runner sends during a turn, without the
// members that vary (fcp, seq, turn), in the order PROTOCOL.md shows them.
type userRequest struct {
	Op       string   `json:"op"`
	Decision string   `json:"decision,omitempty"`
	IDs      []string `json:"ids,omitempty"`
	ID       string   `json:"id,omitempty"`
	Content  *string  `json:"content,omitempty"`
	IsError  bool     `json:"is_error,omitempty"`
}

func (r userRequest) String() string {
	raw, _ := json.Marshal(r)
	return string(raw)
}

// longString is the length above which show prints a string of a request
// by its length and start (a size-limit case's argument, written as a
// $repeat in the case: corpus.RepeatKey), so that the line stays readable;
// --requests prints every string whole.
const longString = 4096

// readable is the request line raw with each long string shortened to
// "<N bytes: START…>"; a line with none is returned unchanged.
func readable(raw []byte) []byte {
	if len(raw) <= longString {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	changed := false
	v = jsonwalk.Strings(v, func(s string) string {
		if len(s) <= longString {
			return s
		}
		changed = true
		return fmt.Sprintf("<%d bytes: %s…>", len(s), strings.ToValidUTF8(s[:32], ""))
	})
	if !changed {
		return raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return raw
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
