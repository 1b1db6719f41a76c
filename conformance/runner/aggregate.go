package runner

import (
	"slices"
	"sort"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
)

// ID statuses beyond the case statuses.
const (
	Uncovered  Status = "uncovered"  // testable, but no case covers it
	Untestable Status = "untestable" // FCP/1 cannot observe it; see the catalog
	Planned    Status = "planned"    // testable, covered by a later op or issue
)

// Aggregate folds case verdicts into per-ID verdicts for every catalogued
// ID. An ID fails when a case covering it fails or when an invariant tagged
// with it fails on any case; it errors when a covering case errored; it
// passes when a covering case passed and nothing failed; it is skipped when
// all its cases were skipped.
func Aggregate(set *spec.Set, results []*Result) []IDResult {
	type acc struct {
		cases                       []string
		failed, errored, passed, sk bool
	}
	accs := map[corpus.Ref]*acc{}
	get := func(ref corpus.Ref) *acc {
		a := accs[ref]
		if a == nil {
			a = &acc{}
			accs[ref] = a
		}
		return a
	}
	for _, res := range results {
		if res == nil {
			continue
		}
		name := res.Case.FullName()
		for _, ref := range res.Case.Refs() {
			a := get(ref)
			a.cases = append(a.cases, name)
			switch res.Status {
			case Passed:
				a.passed = true
			case Errored:
				a.errored = true
			case Skipped:
				a.sk = true
			case Failed:
				// Only the IDs a failure names are failed; the case's other
				// IDs are not blamed for an invariant of another ID.
				a.passed = a.passed || !namedIn(ref, res)
			}
		}
		if res.Status == Failed {
			for _, f := range res.Failures {
				for _, id := range f.IDs {
					get(corpus.ParseRef(res.Case.Spec, id)).failed = true
				}
			}
			if len(res.Failures) == 0 { // an expected failure that passed
				get(corpus.ParseRef(res.Case.Spec, res.Case.PrimaryID())).failed = true
			}
		}
	}
	var out []IDResult
	for _, name := range set.Names() {
		c := set.Catalogs[name]
		for _, req := range c.Requirements {
			a := accs[corpus.Ref{Spec: name, ID: req.ID}]
			ir := IDResult{Spec: name, ID: req.ID, Testable: req.Testable, Level: req.Level, Summary: req.Summary}
			switch {
			case a != nil && a.failed:
				ir.Status = Failed
			case a != nil && a.errored:
				ir.Status = Errored
			case a != nil && a.passed:
				ir.Status = Passed
			case a != nil && a.sk:
				ir.Status = Skipped
			case req.Testable && req.Planned != "":
				ir.Status = Planned
			case req.Testable:
				ir.Status = Uncovered
			default:
				ir.Status = Untestable
			}
			if a != nil {
				ir.Cases = a.cases
				sort.Strings(ir.Cases)
			}
			out = append(out, ir)
		}
	}
	return out
}

func namedIn(ref corpus.Ref, res *Result) bool {
	for _, f := range res.Failures {
		for _, x := range f.IDs {
			if corpus.ParseRef(res.Case.Spec, x) == ref {
				return true
			}
		}
	}
	return false
}

// Charge decides which IDs each failure of case c is charged to. An
// invariant (and a protocol check) names the requirement it enforces and
// keeps its IDs. The case's own checks (expectation, tree, golden) compare
// the whole response, so they cannot tell which requirement a difference
// breaks:
//   - when an invariant that fails the case fired on the same response, it
//     names what is wrong, and the case's own differences are charged to
//     its IDs (they are the evidence of the same defect);
//   - otherwise they are charged to the case's primary ID
//     (corpus.Case.PrimaryID), its other requirement IDs being context;
//   - either way they are also charged to the case's verification IDs
//     (T-*, IT-*: spec.IsVerification): those name a test of an SRD's
//     test table, and the case's expectation is that test written down,
//     so when it does not hold the test failed. An invariant alone, with
//     the expectation met, does not fail the test.
//
// So one defect fails the IDs it breaks, not every ID of every case it
// shows up in. The turn and screen checks of a turn case outside the
// executor's catalog name the executor's requirements (check.Framework).
func Charge(c *corpus.Case, failures []check.Failure) []check.Failure {
	if c.Op == corpus.OpTurn {
		failures = check.Framework(c.Spec, failures)
	}
	var named []string
	for _, f := range failures {
		if ownCheck(f.Kind) || f.Severity != check.SeverityFail {
			continue
		}
		for _, id := range f.IDs {
			if !slices.Contains(named, id) {
				named = append(named, id)
			}
		}
	}
	if len(named) == 0 {
		named = []string{c.PrimaryID()}
	}
	for _, id := range c.IDs {
		if spec.IsVerification(id) && !slices.Contains(named, id) {
			named = append(named, id)
		}
	}
	out := make([]check.Failure, len(failures))
	for i, f := range failures {
		if ownCheck(f.Kind) {
			f.IDs = slices.Clone(named)
		}
		out[i] = f
	}
	return out
}

// ownCheck reports whether kind is one of the case's own checks, which
// compare the whole response rather than one requirement.
func ownCheck(kind string) bool {
	return kind == check.KindExpect || kind == check.KindGolden || kind == check.KindTree
}
