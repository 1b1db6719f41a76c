//go:build unix

package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/forge-conform/forge-conform/internal/mutation"
)

// Report is the outcome of a run (-json writes it).
type Report struct {
	Seed     int64           `json:"seed"`
	N        int             `json:"n"`
	Elapsed  string          `json:"elapsed"`
	Packages []PackageReport `json:"packages"`
	Mutants  []MutantReport  `json:"mutants"`
	Stale    []StaleVerdict  `json:"stale_verdicts,omitempty"`
	// Judged counts the sites of the loaded packages a verdict judges in
	// advance: by a line of their own, by a pattern.
	Judged        Judged `json:"judged"`
	HarnessErrors int    `json:"harness_errors"`
}

// PackageReport counts one package's mutants. Score is killed / (run -
// explained) in percent, absent when nothing counts.
type PackageReport struct {
	Path      string   `json:"path"`
	Sites     int      `json:"sites"`
	Sampled   int      `json:"sampled"`
	Run       int      `json:"run"`
	Killed    int      `json:"killed"`
	Survived  int      `json:"survived"`
	Uncovered int      `json:"uncovered"`
	Explained int      `json:"explained"`
	NotBuilt  int      `json:"not_built"`
	Harness   int      `json:"harness_errors"`
	NotRun    int      `json:"not_run"`
	Score     *float64 `json:"score,omitempty"`
}

// MutantReport is one sampled mutant.
type MutantReport struct {
	Key     string `json:"key"`
	Package string `json:"package"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Diff    string `json:"diff"`
	Outcome string `json:"outcome"`
	// Uncovered: a survivor whose line no case executes (-cover).
	Uncovered bool   `json:"uncovered,omitempty"`
	Detail    string `json:"detail,omitempty"`
	Verdict   string `json:"verdict,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// VerdictAt is the verdicts-file line that judges it ("file:line");
	// Pattern, when that line is a pattern.
	VerdictAt string  `json:"verdict_at,omitempty"`
	Pattern   bool    `json:"pattern,omitempty"`
	Seconds   float64 `json:"seconds"`
}

// Judged counts sites with a verdict, whether or not they were sampled.
type Judged struct {
	Sites    int `json:"sites"`
	ByLine   int `json:"by_line"`
	Patterns int `json:"patterns"`
	// ByPattern are the sites only a pattern judges.
	ByPattern int `json:"by_pattern"`
}

// StaleVerdict is a verdicts-file line that names no site any more.
type StaleVerdict struct {
	At  string `json:"at"`
	Key string `json:"key"`
}

func buildReport(o options, pkgs []*mutation.Package, all []*mutant, verdicts mutation.Verdicts, stale []mutation.Verdict, took time.Duration) Report {
	rep := Report{Seed: o.seed, N: o.n, Elapsed: took.Round(time.Second).String()}
	byPkg := map[string]*PackageReport{}
	for _, p := range pkgs {
		rep.Packages = append(rep.Packages, PackageReport{Path: p.Rel, Sites: len(p.Sites)})
	}
	for i := range rep.Packages {
		byPkg[rep.Packages[i].Path] = &rep.Packages[i]
	}
	for _, m := range all {
		pr := byPkg[m.pkg.Rel]
		pr.Sampled++
		out := m.res.outcome
		if out == "" {
			out = NotRun
		}
		mr := MutantReport{Key: m.site.Key(), Package: m.pkg.Rel, File: m.site.File, Line: m.site.Line, Diff: m.site.Diff(),
			Outcome: out, Uncovered: m.res.uncovered, Detail: m.res.detail, Seconds: m.res.took.Round(100 * time.Millisecond).Seconds()}
		switch out {
		case Killed:
			pr.Run++
			pr.Killed++
			if v, ok := verdicts.Lookup(mr.Key); ok {
				mr.Verdict, mr.Reason, mr.VerdictAt, mr.Pattern = v.Class, v.Reason, v.Pos(), v.Pattern()
			}
		case Survived:
			pr.Run++
			pr.Survived++
			pr.Uncovered += btoi(mr.Uncovered)
			if v, ok := verdicts.Lookup(mr.Key); ok {
				pr.Explained++
				mr.Verdict, mr.Reason, mr.VerdictAt, mr.Pattern = v.Class, v.Reason, v.Pos(), v.Pattern()
			}
		case NotBuilt:
			pr.NotBuilt++
		case Harness:
			pr.Harness++
			rep.HarnessErrors++
		case NotRun:
			pr.NotRun++
		}
		rep.Mutants = append(rep.Mutants, mr)
	}
	for i := range rep.Packages {
		p := &rep.Packages[i]
		if d := p.Run - p.Explained; d > 0 {
			s := 100 * float64(p.Killed) / float64(d)
			p.Score = &s
		}
	}
	for _, v := range stale {
		rep.Stale = append(rep.Stale, StaleVerdict{At: v.Pos(), Key: v.Key})
	}
	for _, v := range verdicts.All() {
		rep.Judged.Patterns += btoi(v.Pattern())
	}
	for _, p := range pkgs {
		for _, site := range p.Sites {
			rep.Judged.Sites++
			if v, ok := verdicts.Lookup(site.Key()); ok {
				rep.Judged.ByLine += btoi(!v.Pattern())
				rep.Judged.ByPattern += btoi(v.Pattern())
			}
		}
	}
	sort.SliceStable(rep.Mutants, func(i, j int) bool { return rep.Mutants[i].Key < rep.Mutants[j].Key })
	return rep
}

func writeText(w io.Writer, rep Report, o options) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "package\tsites\tsampled\trun\tkilled\tsurvived\tuncovered\texplained\tnot built\tharness\tnot run\tscore\t")
	var tot PackageReport
	for _, p := range rep.Packages {
		score := "-"
		if p.Score != nil {
			score = fmt.Sprintf("%.1f%%", *p.Score)
			if *p.Score < o.min {
				score += " LOW"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", p.Path, p.Sites, p.Sampled, p.Run, p.Killed,
			p.Survived, p.Uncovered, p.Explained, p.NotBuilt, p.Harness, p.NotRun, score)
		tot.Sites += p.Sites
		tot.Sampled += p.Sampled
		tot.Run += p.Run
		tot.Killed += p.Killed
		tot.Survived += p.Survived
		tot.Uncovered += p.Uncovered
		tot.Explained += p.Explained
		tot.NotBuilt += p.NotBuilt
		tot.Harness += p.Harness
		tot.NotRun += p.NotRun
	}
	score := "-"
	if d := tot.Run - tot.Explained; d > 0 {
		score = fmt.Sprintf("%.1f%%", 100*float64(tot.Killed)/float64(d))
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", tot.Sites, tot.Sampled, tot.Run, tot.Killed,
		tot.Survived, tot.Uncovered, tot.Explained, tot.NotBuilt, tot.Harness, tot.NotRun, score)
	tw.Flush()

	section := func(title string, keep func(MutantReport) bool, line func(MutantReport) string) {
		var ms []MutantReport
		for _, m := range rep.Mutants {
			if keep(m) {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s (%d):\n", title, len(ms))
		for _, m := range ms {
			fmt.Fprintf(w, "  %s\n      %s\n", m.Key, line(m))
		}
	}
	section("survivors to kill with a case or explain in the verdicts file", func(m MutantReport) bool {
		return m.Outcome == Survived && m.Verdict == ""
	}, func(m MutantReport) string {
		if m.Uncovered {
			return m.Diff + "  (no case executes this line)"
		}
		return m.Diff
	})
	if o.verbose {
		section("explained survivors", func(m MutantReport) bool { return m.Outcome == Survived && m.Verdict != "" }, func(m MutantReport) string {
			by := ""
			if m.Pattern {
				by = " (pattern at " + m.VerdictAt + ")"
			}
			return m.Verdict + by + ": " + m.Reason
		})
	}
	section("harness errors (not counted)", func(m MutantReport) bool { return m.Outcome == Harness }, func(m MutantReport) string {
		return m.Diff + ": " + m.Detail
	})
	section("not run (the -budget ran out, or the run was stopped)", func(m MutantReport) bool { return m.Outcome == NotRun }, func(m MutantReport) string {
		return m.Diff
	})
	for _, m := range rep.Mutants {
		switch {
		case m.Outcome == Killed && m.Pattern:
			fmt.Fprintf(w, "\n%s: killed, yet the pattern at %s calls mutants of its shape %s: narrow the pattern so that it leaves out this site, which a case kills\n", m.Key, m.VerdictAt, m.Verdict)
		case m.Outcome == Killed && m.Verdict != "":
			fmt.Fprintf(w, "\n%s: killed, yet %s calls it %s: remove that line\n", m.Key, m.VerdictAt, m.Verdict)
		}
	}
	for _, s := range rep.Stale {
		fmt.Fprintf(w, "\n%s: stale verdict, no such site: %s\n", s.At, s.Key)
	}
	j := rep.Judged
	fmt.Fprintf(w, "\nverdicts judge %d of the %d sites in advance: %d by a line of their own, %d by one of %d patterns\n",
		j.ByLine+j.ByPattern, j.Sites, j.ByLine, j.ByPattern, j.Patterns)
	fmt.Fprintf(w, "seed %d, -n %d, %s\n", rep.Seed, rep.N, rep.Elapsed)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
