package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TextOptions tune the human report.
type TextOptions struct {
	// Verbose shows every block in full (whole diffs, responses and
	// expectations, golden diffs, repeated failures), the notes, and every
	// ID and case, not only the ones that need attention.
	Verbose bool
	// CasesDir is the directory case files are named relative to in
	// "defined at" lines (default "conformance/cases").
	CasesDir string
}

// Limits of the default (non-verbose) report. The first failing case of
// each cause (a charged ID with a kind of check, causeKeys) gets a full
// block; a case all of whose causes were shown gets one line with its
// first failure and first change, after the full blocks, so that a
// report's first screens reach every distinct bug (-v shows every block in full, `forge-conform show
// CASE` one case).
const (
	clipLine = 160 // bytes of a doc, request, response, expectation or diff line
	clipDiff = 12  // lines of a diff
	clipTurn = 30  // events of a turn's transcript
	// errorEvents is how many of an errored turn's last events are shown.
	errorEvents = 8
	tableText   = 56 // characters of an ID's summary in the table
	// erroredRows is how many errored IDs the table lists one by one; more
	// are one line per spec.
	erroredRows = 8
)

// Text writes the human report: one block per failing or errored case in
// corpus order, warnings, a table of the IDs that need attention, then
// counts. A case failing only in ways an earlier one did (the same
// charged IDs and kinds of check) gets one line pointing at the first.
func Text(w io.Writer, run *runner.Run, o TextOptions) {
	if o.CasesDir == "" {
		o.CasesDir = "conformance/cases"
	}
	t := &textWriter{w: w, o: o, seen: map[string]string{}, run: run}
	im := run.Implementation
	fmt.Fprintf(w, "forge-conform: checking %s %s (%s)\n", orDash(im.Name), clean(im.Version), orDash(im.Language))
	for _, n := range run.Notes {
		if run.Stopped != nil && run.Stopped.Hello != "" && strings.HasPrefix(n, "hello failed") {
			continue // the stop says it
		}
		fmt.Fprintf(w, "note: %s\n", clean(n))
	}
	if run.Stopped != nil {
		t.stopped(run.Stopped)
		return
	}
	t.groupErrors(run)
	for _, r := range run.Results {
		if r.Status == runner.Failed || r.Status == runner.Errored {
			t.block(r)
		}
	}
	if len(t.later) > 0 {
		t.printf("\nfailing only like a case above (%d):\n", len(t.later))
		for _, l := range t.later {
			t.printf("%s\n", l)
		}
	}
	t.warnings(run)
	t.reviews(run)
	t.idTable(run)
	t.counts(run)
	t.versions(run)
}

type textWriter struct {
	w    io.Writer
	run  *runner.Run
	o    TextOptions
	seen map[string]string // cause (causeKeys) -> first case showing it
	// later are the one-line blocks of cases failing only like earlier
	// ones, printed after the full blocks.
	later []string
	// same lists, by errored case, the later cases that errored with its
	// cause (runner.Cause); those cases get no block of their own.
	same map[string][]string
	// grouped are the errored cases listed under an earlier one.
	grouped map[string]bool
}

// stopped writes the report of a run that stopped before checking
// anything: the cause once, and how to reproduce it by hand.
func (t *textWriter) stopped(st *runner.Stop) {
	norm := func(s string) string { return digitRun.ReplaceAllString(s, "N") }
	t.printf("\nstopped: no requirement was checked, the implementation cannot answer.\n")
	switch {
	case st.Hello != "" && norm(st.Hello) == norm(st.Cause):
		t.printf("  hello and the first case (%s) failed alike: %s\n", strings.Join(st.Cases, ", "), clean(st.Cause))
	case st.Hello != "":
		t.printf("  hello: %s\n  then %s: %s\n", clean(st.Hello), strings.Join(st.Cases, ", "), clean(st.Cause))
	default:
		t.printf("  the first %d cases all errored alike: %s\n  cases: %s\n", len(st.Cases), clean(st.Cause), strings.Join(st.Cases, ", "))
	}
	cause := st.Cause
	if st.Hello != "" {
		cause = st.Hello
	}
	if h := Hint(seenOf(cause, nil)); h != "" {
		t.printf("  hint: %s\n", h)
	}
	if s := strings.TrimSpace(st.Stderr); s != "" {
		t.printf("  stderr:\n%s", indentLines(tail(clean(s), 5), "    "))
	}
	if len(st.Reproduce) > 0 {
		t.printf("reproduce by hand (one JSON line in per request, one line out; see spec/PROTOCOL.md):\n")
		for _, c := range st.Reproduce {
			t.printf("  %s\n", c)
		}
	}
}

// digitRun is what differs between two reports of one error (seq numbers).
var digitRun = regexp.MustCompile(`[0-9]+`)

// groupErrors finds the errored cases with one cause (runner.Cause): the
// first of each group gets the block, listing the others.
func (t *textWriter) groupErrors(run *runner.Run) {
	t.same, t.grouped = map[string][]string{}, map[string]bool{}
	if t.o.Verbose {
		return
	}
	first := map[string]string{}
	for _, r := range run.Results {
		cause := runner.Cause(r)
		if cause == "" {
			continue
		}
		name := r.Case.FullName()
		if f, ok := first[cause]; ok {
			t.same[f] = append(t.same[f], name)
			t.grouped[name] = true
			continue
		}
		first[cause] = name
	}
}

func (t *textWriter) printf(format string, args ...any) { fmt.Fprintf(t.w, format, args...) }

func (t *textWriter) block(r *runner.Result) {
	c := r.Case
	head := strings.ToUpper(string(r.Status)) + " " + c.FullName()
	if c.File != "" {
		where := t.o.CasesDir + "/" + c.File
		if c.Line > 0 {
			where += fmt.Sprintf(":%d", c.Line)
		}
		head += "  (" + where + ")"
	}
	if r.Status == runner.Errored {
		if t.grouped[c.FullName()] {
			return
		}
		t.printf("\n%s\n  IDs: %s\n", head, strings.Join(c.IDs, " "))
		t.request(r)
		t.printf("  error: %s\n", t.clip(clean(r.Message)))
		seen := seenResult(r)
		if evs := turnEvents(r.Turn); len(evs) > 0 {
			lines := eventLines(evs, 0)
			if len(evs) > errorEvents && !t.o.Verbose {
				t.printf("  turn (%d events, the last %d):\n", len(evs), errorEvents)
				lines = lines[len(lines)-errorEvents:]
			} else {
				t.printf("  turn (%d events):\n", len(evs))
			}
			t.printf("%s", indentLines(strings.Join(lines, "\n"), "    "))
		}
		if h := Hint(seen); h != "" {
			t.printf("  hint: %s\n", h)
		}
		if r.Stderr != "" {
			t.printf("  stderr:\n%s", indentLines(tail(clean(r.Stderr), 10), "    "))
		}
		if same := t.same[c.FullName()]; len(same) > 0 {
			const show = 5
			list := strings.Join(same[:min(show, len(same))], ", ")
			if len(same) > show {
				list += ", ... (-v shows each)"
			}
			t.printf("  the same error in %d more case(s): %s\n", len(same), list)
		}
		return
	}
	fails := ordered(r.Failures)
	if !t.o.Verbose {
		first, repeated := "", true
		for _, keys := range causeKeys(fails) {
			known := ""
			for _, k := range keys {
				if f, ok := t.seen[k]; ok && known == "" {
					known = f
				}
			}
			for _, k := range keys {
				if _, ok := t.seen[k]; !ok {
					t.seen[k] = c.Name
				}
			}
			if known == "" {
				repeated = false
			} else if first == "" {
				first = known
			}
		}
		if repeated && len(fails) > 0 {
			line := head + ": like " + first + ": "
			f := fails[0]
			msg, _, _ := strings.Cut(clean(f.Message), " (")
			line += fmt.Sprintf("%s [%s]: %s", f.Kind, strings.Join(f.IDs, " "), msg)
			if ch := firstChange(fails); ch != "" {
				line += "; " + ch
			}
			t.later = append(t.later, clipMiddle(line, 2*clipLine))
			return
		}
	}
	t.printf("\n%s\n", head)
	ids := "  IDs: " + strings.Join(c.IDs, " ")
	if len(c.Interpretations) > 0 {
		ids += "; relies on " + strings.Join(c.Interpretations, ", ") + " (spec/INTERPRETATIONS.md)"
	}
	t.printf("%s\n", ids)
	if c.Doc != "" {
		t.printf("  doc: %s\n", t.clip(clean(c.Doc)))
	}
	t.request(r)
	if evs := turnEvents(r.Turn); len(evs) > 0 {
		t.printf("  turn (%d events):\n", len(evs))
		max := clipTurn
		if t.o.Verbose {
			max = 0
		}
		t.printf("%s", indentLines(strings.Join(eventLines(evs, max), "\n"), "    "))
	} else {
		t.printf("  response: %s\n", responseText(received(r), t.clipN()))
	}
	if w := wantedText(c, t.clipN()); w != "" {
		t.printf("  wanted: %s\n", w)
	}
	if len(fails) == 0 {
		t.printf("  %s\n", clean(r.Message))
	}
	others := false
	for _, f := range fails {
		if f.Kind != check.KindGolden {
			others = true
		}
	}
	// Past the first failure of each cause in the case, the rest are
	// counted (-v shows each).
	shown, more := map[string]bool{}, map[string]int{}
	var moreOrder []string
	for _, f := range fails {
		key := f.Kind + " [" + strings.Join(f.IDs, ", ") + "]"
		if shown[key] && !t.o.Verbose {
			if more[key] == 0 {
				moreOrder = append(moreOrder, key)
			}
			more[key]++
			continue
		}
		shown[key] = true
		line := t.failureLine(c, f)
		switch {
		case f.Diff == "":
			t.printf("  %s\n", line)
		case f.Kind == check.KindGolden && others && !t.o.Verbose:
			t.printf("  %s (diff with -v)\n", line)
		default:
			t.printf("  %s\n", line)
			t.diff(f.Diff)
		}
	}
	for _, key := range moreOrder {
		t.printf("  ... %d more %s failures like the first (-v shows each)\n", more[key], key)
	}
	for _, q := range quotesOf(t.run, fails) {
		for _, l := range quoteLines(q, t.run.Quotes.Given(), t.clip) {
			t.printf("  %s\n", l)
		}
	}
}

// failureLine is "kind [IDs]: message", the IDs left out when they are
// the case's own.
// Each line of the message is cut in the middle past twice clipLine (a
// message may quote a whole response).
func (t *textWriter) failureLine(c *corpus.Case, f check.Failure) string {
	msg := clean(f.Message)
	if !t.o.Verbose {
		lines := strings.Split(msg, "\n")
		for i, l := range lines {
			lines[i] = clipMiddle(l, 2*clipLine)
		}
		msg = strings.Join(lines, "\n")
	}
	if strings.Join(f.IDs, " ") == strings.Join(c.IDs, " ") {
		return fmt.Sprintf("%s: %s", f.Kind, msg)
	}
	return fmt.Sprintf("%s [%s]: %s", f.Kind, strings.Join(f.IDs, ", "), msg)
}

// request prints the checked request as sent, paths as $ROOT.
func (t *textWriter) request(r *runner.Result) {
	req := r.Request
	if req == nil {
		return
	}
	if req.Call == nil {
		t.printf("  request: op %s\n", req.Op)
		return
	}
	line := fmt.Sprintf("%s %s", req.Call.Name, compact(req.Call.Args))
	if req.Op != fcp.OpCall {
		line = "op " + req.Op + ": " + line
	}
	t.printf("  request: %s\n", t.clip(line))
	if req.Ctx != nil && (req.Ctx.MaxOutputBytes != nil || req.Ctx.AvailableCapacityBytes != nil || req.Ctx.WorkingDir != "$ROOT") {
		ctx, _ := json.Marshal(req.Ctx)
		t.printf("    ctx: %s\n", ctx)
	}
	if len(req.Config) > 0 && string(req.Config) != "{}" {
		t.printf("    config: %s\n", t.clip(compact(req.Config)))
	}
}

func (t *textWriter) diff(d string) {
	d = clean(d)
	if !t.o.Verbose {
		d = shortDiff(d, clipLine, clipDiff)
	}
	t.printf("%s", indentLines(d, "    "))
}

// clipN is how long a value may be before it is cut (0: -v, never).
func (t *textWriter) clipN() int {
	if t.o.Verbose {
		return 0
	}
	return clipLine
}

func (t *textWriter) clip(s string) string {
	if t.o.Verbose {
		return s
	}
	return clipMiddle(s, clipLine)
}

// firstChange describes the first change of the first diff on one line:
// "want X, got Y" from the first removed line and the first line added in
// its place, "missing X" or "extra Y" when there is only one side. Lines
// of bare brackets say nothing and are passed over.
func firstChange(fs []check.Failure) string {
	for _, f := range fs {
		if f.Diff == "" {
			continue
		}
		var minus, plus string
		inHunk, side := false, byte(0)
		for _, l := range strings.Split(f.Diff, "\n") {
			if strings.HasPrefix(l, "@@") {
				if inHunk {
					break
				}
				inHunk = true
				continue
			}
			if !inHunk || l == "" {
				continue
			}
			if l[0] != '-' && l[0] != '+' {
				if side != 0 {
					break // the first run of changes is over
				}
				continue
			}
			body := strings.TrimRight(strings.TrimSpace(l[1:]), ",")
			if strings.Trim(body, "{}[]") == "" {
				continue
			}
			if side == 0 {
				side = l[0]
			}
			switch {
			case l[0] == '-' && minus == "" && side == '-':
				minus = body
			case l[0] == '+' && plus == "":
				plus = body
			}
		}
		switch {
		case minus != "" && plus != "":
			return "want " + clean(minus) + ", got " + clean(plus)
		case minus != "":
			return "missing " + clean(minus)
		case plus != "":
			return "extra " + clean(plus)
		}
	}
	return ""
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// warnings prints the count of warnings and their blocks, the count of
// notes (detail with -v) and the spec conflicts the run touched.
func (t *textWriter) warnings(run *runner.Run) {
	nw, nn := 0, 0
	for _, r := range run.Results {
		nw += len(r.Warnings)
		nn += len(r.Notes)
	}
	if nw > 0 {
		t.printf("\nwarnings: %d (SHOULD/MAY or advice not followed; --strict makes them fail)\n", nw)
		for _, r := range run.Results {
			for _, f := range r.Warnings {
				t.printf("  WARN %s  %s [%s]: %s\n", r.Case.FullName(), f.Kind, strings.Join(f.IDs, ", "), clean(f.Message))
				if f.Diff != "" && t.o.Verbose {
					t.diff(f.Diff)
				}
			}
		}
	}
	if nn > 0 {
		t.printf("\nnotes: %d differences from the reference where the spec leaves the bytes open", nn)
		if !t.o.Verbose {
			t.printf(" (-v lists them)\n")
		} else {
			t.printf("\n")
			for _, r := range run.Results {
				for _, f := range r.Notes {
					t.printf("  NOTE %s  %s [%s]: %s\n", r.Case.FullName(), f.Kind, strings.Join(f.IDs, ", "), clean(f.Message))
					if f.Diff != "" {
						t.diff(f.Diff)
					}
				}
			}
		}
	}
	if len(run.Conflicts) > 0 {
		t.printf("\n")
		for _, c := range run.Conflicts {
			t.printf("spec conflict touched: %s %s (spec/INTERPRETATIONS.md; the cases accept both readings)\n", c.ID, clean(c.Title))
		}
	}
}

// idTable prints one line per ID that needs attention (every ID with -v),
// then a count line per spec.
func (t *textWriter) idTable(run *runner.Run) {
	failing := map[string][]string{} // spec/ID -> failing cases naming it
	for _, r := range run.Results {
		if r.Status != runner.Failed && r.Status != runner.Errored {
			continue
		}
		for _, ref := range refsOf(r) {
			k := ref.Spec + "/" + ref.ID
			failing[k] = append(failing[k], r.Case.Name)
		}
	}
	// Many errored IDs (an implementation that cannot answer) are one line
	// per spec: the errors above say why, -v lists them.
	erroredBySpec := map[string]int{}
	erroredIDs := 0
	for _, ir := range run.IDs {
		if ir.Status == runner.Errored {
			erroredBySpec[ir.Spec]++
			erroredIDs++
		}
	}
	collapse := !t.o.Verbose && erroredIDs > erroredRows
	header := false
	for _, ir := range run.IDs {
		attention := ir.Status == runner.Failed || ir.Status == runner.Errored || ir.Status == runner.Uncovered
		if !attention && !t.o.Verbose {
			continue
		}
		if collapse && ir.Status == runner.Errored {
			n := erroredBySpec[ir.Spec]
			if n == 0 {
				continue // already summed up
			}
			erroredBySpec[ir.Spec] = 0
			if !header {
				t.printf("\nIDs needing attention:\n")
				header = true
			}
			t.printf("  %-10s %d IDs of %s: their cases errored (the errors above; -v lists the IDs)\n", "ERRORED", n, ir.Spec)
			continue
		}
		if !header {
			t.printf("\nIDs%s:\n", map[bool]string{false: " needing attention", true: ""}[t.o.Verbose])
			header = true
		}
		summary := clean(ir.Summary)
		if !t.o.Verbose && len(summary) > tableText {
			summary = summary[:tableText-3] + "..."
		}
		line := fmt.Sprintf("  %-10s %-16s %-15s %-*s", strings.ToUpper(string(ir.Status)), ir.ID, ir.Spec, tableText, summary)
		if cs := failing[ir.Spec+"/"+ir.ID]; len(cs) > 0 {
			line += "  " + cs[0]
			if len(cs) > 1 {
				line += fmt.Sprintf(" +%d", len(cs)-1)
			}
		}
		t.printf("%s\n", strings.TrimRight(line, " "))
	}
}

// refsOf returns the IDs a failing case's verdict touches: its own and
// those its failures name.
func refsOf(r *runner.Result) []corpus.Ref {
	seen := map[corpus.Ref]bool{}
	var out []corpus.Ref
	add := func(ids []string) {
		for _, id := range ids {
			ref := corpus.ParseRef(r.Case.Spec, id)
			if !seen[ref] {
				seen[ref] = true
				out = append(out, ref)
			}
		}
	}
	add(r.Case.IDs)
	for _, f := range r.Failures {
		add(f.IDs)
	}
	return out
}

func (t *textWriter) counts(run *runner.Run) {
	order := []runner.Status{runner.Passed, runner.Failed, runner.Errored, runner.Skipped, runner.Uncovered, runner.Planned, runner.Untestable}
	bySpec := map[string]map[runner.Status]int{}
	var specs []string
	for _, ir := range run.IDs {
		if bySpec[ir.Spec] == nil {
			bySpec[ir.Spec] = map[runner.Status]int{}
			specs = append(specs, ir.Spec)
		}
		bySpec[ir.Spec][ir.Status]++
	}
	t.printf("\n")
	for _, s := range specs {
		m := bySpec[s]
		if !t.o.Verbose && m[runner.Passed]+m[runner.Failed]+m[runner.Errored]+m[runner.Uncovered] == 0 {
			continue // nothing of this spec ran
		}
		t.printf("%s: %s\n", s, countLine(m, order))
	}
	skips := map[string]int{}
	for _, r := range run.Results {
		switch {
		case r.Unselected:
		case r.Status == runner.Skipped:
			skips[clean(r.Message)]++
		case t.o.Verbose:
			t.printf("%-8s %s (%s)\n", strings.ToUpper(string(r.Status)), r.Case.FullName(), r.Duration.Round(10000))
		}
	}
	reasons := make([]string, 0, len(skips))
	for m := range skips {
		reasons = append(reasons, m)
	}
	sort.Strings(reasons)
	for _, m := range reasons {
		t.printf("skipped %d case(s): %s\n", skips[m], m)
	}
	idCounts := map[runner.Status]int{}
	for _, ir := range run.IDs {
		idCounts[ir.Status]++
	}
	t.printf("IDs: %s\n", countLine(idCounts, order))
	s := run.Summary()
	unselected := 0
	for _, r := range run.Results {
		if r.Unselected {
			unselected++
		}
	}
	line := fmt.Sprintf("cases: %d passed, %d failed, %d skipped, %d errored", s[runner.Passed], s[runner.Failed], s[runner.Skipped]-unselected, s[runner.Errored])
	if unselected > 0 {
		line += fmt.Sprintf(" (%d not selected)", unselected)
	}
	t.printf("%s in %s\n", line, run.Elapsed.Round(1000000))
}

// ordered puts the failures that say most first: invariants (tagged with
// the one ID they enforce), then the expectation and the other checks,
// the golden bytes last.
func ordered(fs []check.Failure) []check.Failure {
	rank := func(k string) int {
		switch k {
		case check.KindInvariant:
			return 0
		case check.KindGolden:
			return 2
		}
		return 1
	}
	out := append([]check.Failure(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i].Kind) < rank(out[j].Kind) })
	return out
}

// causeKeys are the causes of a case's failures, by failure: each ID it
// is charged to with its kind of check. A failure sharing one of them with
// an earlier one has the same cause. A golden failure beside others is
// left out: it repeats what they say in bytes.
func causeKeys(fs []check.Failure) [][]string {
	others := false
	for _, f := range fs {
		others = others || f.Kind != check.KindGolden
	}
	var out [][]string
	for _, f := range fs {
		if f.Kind == check.KindGolden && others {
			continue
		}
		var keys []string
		for _, id := range f.IDs {
			keys = append(keys, id+"|"+f.Kind)
		}
		out = append(out, keys)
	}
	return out
}

// received is the response as the implementation sent it (normalized):
// Result.Received when the checks saw less of it.
func received(r *runner.Result) *fcp.Response {
	if r.Received != nil {
		return r.Received
	}
	return r.Response
}

// responseText is a response on one line: ok and the content, or the
// error, values longer than n bytes cut in the middle (0: never).
func responseText(r *fcp.Response, n int) string {
	switch {
	case r == nil:
		return "(none)"
	case r.Error != nil:
		s := "error " + r.Error.Kind + ": " + clipMiddle(clean(r.Error.Message), n)
		if r.Error.Denial != nil {
			d, _ := json.Marshal(r.Error.Denial)
			s += " denial " + string(d)
		}
		return s
	case r.Summary != nil:
		return fmt.Sprintf("ok, risk %s, summary %q", r.RiskLevel, *r.Summary)
	case r.Definitions != nil:
		names := make([]string, len(r.Definitions))
		for i, d := range r.Definitions {
			names[i] = d.Name
		}
		return fmt.Sprintf("ok, %d definitions: %s", len(names), clipMiddle(strings.Join(names, ", "), n))
	case r.Content != nil:
		s := fmt.Sprintf("ok, %d bytes", len(*r.Content))
		if r.AllowTruncation != nil && *r.AllowTruncation {
			s += ", allow_truncation"
		}
		return s + ": " + clipMiddle(contentLine(*r.Content), n)
	}
	b, _ := json.Marshal(r)
	return clipMiddle(string(b), n)
}

// wantedText is the case's expectation on one line, values longer than n
// bytes cut in the middle (0: never).
func wantedText(c *corpus.Case, n int) string {
	contentLine := func(s string) string { return clipMiddle(contentLine(s), n) }
	compact := func(raw []byte) string { return clipMiddle(compact(raw), n) }
	e := c.Expect
	var parts []string
	switch {
	case e.Error != nil:
		s := "error " + e.Error.Kind
		if e.Error.Kind == "" {
			s = "an error of any kind"
		}
		if e.Error.Message != nil {
			s += fmt.Sprintf(" with message %q", *e.Error.Message)
		}
		for _, m := range e.Error.MessageContains {
			s += fmt.Sprintf(", message containing %q", m)
		}
		if e.Error.Denial != nil {
			d, _ := json.Marshal(e.Error.Denial)
			s += " denial " + string(d)
		}
		parts = append(parts, s)
	case e.Text != nil && corpus.HasPaths(*e.Text):
		parts = append(parts, "ok, this content, each $PATH(...) any spelling of its path: "+contentLine(*e.Text))
	case e.Text != nil:
		parts = append(parts, fmt.Sprintf("ok, exactly %d bytes: %s", len(*e.Text), contentLine(*e.Text)))
	case e.Sanitized != nil:
		parts = append(parts, "ok, this content with its control characters removed or neutralized: "+contentLine(*e.Sanitized))
	case e.JSON != nil:
		parts = append(parts, "ok, content matching (listed fields only) "+compact(e.JSON))
	}
	if e.Tree != nil {
		parts = append(parts, fmt.Sprintf("tree: %d stated paths, every other entry unchanged", len(e.Tree)))
	}
	return strings.Join(parts, "; ")
}

// contentLine shows content on one line: JSON compacted, text quoted.
func contentLine(s string) string {
	if json.Valid([]byte(s)) {
		return compact([]byte(s))
	}
	return fmt.Sprintf("%q", s)
}

// compact removes a JSON text's insignificant whitespace, keeping its
// key order.
func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return clean(string(raw))
	}
	return clean(b.String())
}

// clean replaces control characters (which would garble a terminal) with
// their \x escapes; newlines and tabs stay.
func clean(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			fmt.Fprintf(&b, `\x%02x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func indentLines(s, pad string) string {
	s = strings.TrimRight(s, "\n")
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad) + "\n"
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... %d earlier lines", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func countLine(m map[runner.Status]int, order []runner.Status) string {
	var parts []string
	for _, s := range order {
		if m[s] > 0 || s == runner.Passed || s == runner.Failed {
			parts = append(parts, fmt.Sprintf("%d %s", m[s], s))
		}
	}
	return strings.Join(parts, ", ")
}
