package runner

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

// TestObserveQuiet: operations before the window are allowed, more
// than max_ops in the window fail naming the primary ID, and a count that
// is unavailable is an error of the runner, never a pass.
func TestObserveQuiet(t *testing.T) {
	c := &corpus.Case{Spec: "list_directory", Name: "q", Primary: "tool_executor:FR-EXE-04", IDs: []string{"tool_executor:FR-EXE-04"}}
	q := &corpus.Quiet{AfterMS: 40, WithinMS: 60, MaxOps: 2}
	tests := []struct {
		name     string
		settling int64 // operations before the window
		window   int64 // operations during the window
		none     bool  // no counter
		fail     bool
		msg      string
	}{
		{name: "quiet", settling: 50},
		{name: "a few", window: 2},
		{name: "busy", window: 3, fail: true},
		{name: "no counter", none: true, msg: "does not count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int64
			sent := time.Now()
			go func() {
				n.Add(tt.settling)
				time.Sleep(q.After() + q.Within()/2)
				n.Add(tt.window)
			}()
			ops := func() (int64, bool) { return n.Load(), true }
			if tt.none {
				ops = nil
			}
			f, msg := observeQuiet(context.Background(), c, q, sent, ops)
			if (f != nil) != tt.fail || !strings.Contains(msg, tt.msg) || (tt.msg == "") != (msg == "") {
				t.Fatalf("failure %+v, message %q; want failure %v, message with %q", f, msg, tt.fail, tt.msg)
			}
			if f != nil && (len(f.IDs) != 1 || f.IDs[0] != c.Primary) {
				t.Errorf("failure IDs %v, want the primary %s", f.IDs, c.Primary)
			}
		})
	}
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		ops := func() (int64, bool) { return 0, true }
		if _, msg := observeQuiet(ctx, c, q, time.Now(), ops); !strings.Contains(msg, "deadline") {
			t.Errorf("message %q, want the deadline named", msg)
		}
	})
}
