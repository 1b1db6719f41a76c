package fcpclient

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TestTreeKillsSetsidGrandchild: a grandchild that leaves the process group
// with setsid is killed with the implementation, by the cgroup and by the
// subreaper fallback, in a session and in one-shot mode.
func TestTreeKillsSetsidGrandchild(t *testing.T) {
	_, cgErr := ownCgroup()
	if cgErr == nil {
		probe, err := newCgroupTree()
		if err != nil {
			cgErr = err
		} else {
			probe.release()
		}
	}
	for _, noCgroup := range []bool{false, true} {
		for _, oneshot := range []bool{false, true} {
			name := map[bool]string{false: "cgroup", true: "subreaper"}[noCgroup] + map[bool]string{false: "/session", true: "/oneshot"}[oneshot]
			t.Run(name, func(t *testing.T) {
				if !noCgroup && cgErr != nil {
					t.Skipf("cgroup v2 not writable here: %v", cgErr)
				}
				noLeaks(t)
				o := opts("spawn-grandchild-and-hang", "setsid")
				o.NoCgroup = noCgroup
				var resp fcp.Response
				var pid int
				if oneshot {
					var err error
					resp, _, _, err = OneShot(ctxTimeout(t, 5*time.Second), o, fcp.Request{Op: fcp.OpHello})
					if protocolError(t, err).Kind != KindTimeout {
						t.Errorf("got %v, want a timeout waiting for the exit", err)
					}
				} else {
					s, err := Start(context.Background(), o)
					if err != nil {
						t.Fatal(err)
					}
					pid = s.Pid()
					if got := s.p.tree.mode(); got != map[bool]string{false: "cgroup", true: "subreaper"}[noCgroup] {
						t.Errorf("tree mode %s", got)
					}
					cg := s.p.tree.cgroup
					if resp, err = s.Hello(ctxTimeout(t, 5*time.Second)); err != nil {
						t.Fatal(err)
					}
					if _, _, err := s.Do(ctxTimeout(t, 300*time.Millisecond), fcp.Request{Op: fcp.OpCall}); err == nil {
						t.Error("a hanging call answered")
					}
					_ = s.Close()
					waitGone(t, "implementation", pid)
					if cg != "" {
						if _, err := os.Stat(cg); !os.IsNotExist(err) {
							t.Errorf("cgroup %s not removed: %v", cg, err)
						}
					}
				}
				gc, _ := strconv.Atoi(resp.Implementation.Version)
				if gc <= 0 {
					t.Fatalf("no grandchild pid in %+v", resp)
				}
				waitGone(t, "setsid grandchild", gc)
			})
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		"/sys/fs/cgroup":         "/sys/fs/cgroup",
		`/mnt/with\040space`:     "/mnt/with space",
		`/odd\134name`:           `/odd\name`,
		filepath.Join("/a", "b"): "/a/b",
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}
