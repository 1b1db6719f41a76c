package corpus

import (
	"errors"
	"fmt"
)

// Scaling makes a call case a check of complexity (the NFR-*-PERF-02 IDs:
// a sort "O(n log n) or better for n returned entries"). The case's
// request runs on two fixtures: the case's own Fixture, where it returns n
// entries, and Scaling.Fixture, where it returns Factor times as many. The
// case's Expect must hold of the first response and Scaling.Expect of the
// second (they pin n and Factor·n, so that what is timed is what the SRD
// counts). The runner then repeats the two calls, interleaved, reading
// the CPU time of the implementation's process tree around each, and
// judges the ratio of the large call's CPU time to the small one's:
// Factor·log(Factor·n)/log(n) for an O(n log n) implementation (about 22
// for n = 2048 and Factor 16), Factor² (256) for a quadratic one. The case
// fails when the ratio is surely above MaxRatio and passes when it is
// surely below; a measurement too noisy to say is an errored case that
// gives its numbers, never a verdict (runner, scaling.go).
//
//	"scaling": {"fixture": "scaling-ld-16x", "factor": 16, "max_ratio": 64,
//	            "expect": {"json": {"returned": 16384, "truncated": false}}}
//
// A scaling case has no golden file (its outputs are megabytes that say
// nothing the expectations do not) and no before steps.
type Scaling struct {
	// Fixture is the large fixture.
	Fixture string `json:"fixture"`
	// Factor is how many times the small call's entries the large call
	// returns (2 or more).
	Factor int `json:"factor"`
	// MaxRatio is the largest ratio of CPU times an implementation within
	// the bound may show; it lies well between Factor·log ratio and
	// Factor².
	MaxRatio float64 `json:"max_ratio"`
	// Expect is the expectation of the large call's response.
	Expect Expect `json:"expect"`
}

// check says what is wrong with a scaling case, or nil.
func (s *Scaling) check(k *Case) error {
	switch {
	case k.Op != "call":
		return errors.New("a scaling case is op call")
	case len(k.Before) > 0:
		return errors.New("a scaling case has no before steps: each measured call must be the same request on another fixture")
	case s.Fixture == "" || s.Fixture == k.Fixture:
		return errors.New("scaling.fixture names the large fixture, which differs from the case's")
	case s.Factor < 2:
		return fmt.Errorf("scaling.factor %d: want 2 or more", s.Factor)
	case s.MaxRatio <= float64(s.Factor) || s.MaxRatio >= float64(s.Factor*s.Factor):
		return fmt.Errorf("scaling.max_ratio %g: want a limit between factor (%d, linear) and factor² (%d, quadratic)", s.MaxRatio, s.Factor, s.Factor*s.Factor)
	}
	return nil
}
