package runner

import (
	"testing"
	"time"
)

func TestJudgeScaling(t *testing.T) {
	ms := func(vs ...float64) []scalingSample {
		out := make([]scalingSample, len(vs))
		for i, v := range vs {
			out[i] = scalingSample{cpu: time.Duration(v * float64(time.Millisecond))}
		}
		return out
	}
	tests := []struct {
		name         string
		small, large []scalingSample
		decided      bool
		fail         bool
	}{
		{"n log n", ms(4, 4.2, 5), ms(90, 95, 100), true, false},
		{"quadratic", ms(10, 10.5, 11, 10, 12), ms(700, 720, 800, 710, 900), true, true},
		{"far above the limit, three samples: fails", ms(10, 10.5, 11), ms(1000, 1020, 1100), true, true},
		{"above the limit, three samples: not yet", ms(10, 10.5, 11), ms(700, 720, 800), false, false},
		{"minima above, medians within: undecided", ms(2, 4, 4.2), ms(100, 150, 160), false, false},
		{"minima within, medians above: a collector in the large calls passes", ms(7, 7, 7.2), ms(160, 310, 320), true, false},
		{"a slow sample of each size does not decide", ms(4, 4.1, 40), ms(90, 95, 1000), true, false},
		{"at the limit passes", ms(1, 1, 1), ms(48, 48, 48), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := judgeScaling(tt.small, tt.large, 48)
			if v.decided != tt.decided || v.fail != tt.fail {
				t.Errorf("judgeScaling = %+v, want decided %v fail %v", v, tt.decided, tt.fail)
			}
		})
	}
}
