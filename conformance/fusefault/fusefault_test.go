//go:build linux

package fusefault

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/moby/sys/mountinfo"
)

// mount serves a fresh directory with a few entries through FUSE with
// faults, or skips when FUSE cannot be used here.
func mount(t *testing.T, faults []Fault) (src, mnt string) {
	t.Helper()
	if err := Usable(); err != nil {
		t.Skip(err)
	}
	src, mnt = t.TempDir(), t.TempDir()
	for name, content := range map[string]string{"a.txt": "one\n", "b.txt": "two\n", "d/x": "x\n", "e/y": "y\n"} {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.txt", filepath.Join(src, "ln")); err != nil {
		t.Fatal(err)
	}
	m, err := New(src, mnt, faults)
	if err != nil {
		t.Skipf("FUSE is not usable here: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Unmount(); err != nil {
			t.Error(err)
		}
	})
	return src, mnt
}

func TestFaults(t *testing.T) {
	src, mnt := mount(t, []Fault{
		{Op: OpLstat, Path: "a.txt", Errno: syscall.EIO},
		{Op: OpReaddir, Path: "d", Errno: syscall.EIO},
		{Op: OpRename, Path: "b.txt", Errno: syscall.ENOSPC},
		{Op: OpOpenWrite, Path: "e/y", Errno: syscall.EACCES},
		{Op: OpOpen, Path: "e", Errno: syscall.ENOENT},
		{Op: OpReadlink, Path: "ln", Errno: syscall.ELOOP},
		{Op: OpLink, Path: "d/x", Errno: syscall.EMLINK},
	})
	at := func(p string) string { return filepath.Join(mnt, p) }
	tests := []struct {
		name string
		op   func() error
		want error // nil: succeeds
	}{
		{"lstat fault", func() error { _, err := os.Lstat(at("a.txt")); return err }, syscall.EIO},
		{"open behind lstat fault", func() error { _, err := os.ReadFile(at("a.txt")); return err }, syscall.EIO},
		{"readdir fault", func() error { _, err := os.ReadDir(at("d")); return err }, syscall.EIO},
		{"file in faulty dir", func() error { _, err := os.ReadFile(at("d/x")); return err }, nil},
		{"rename onto fault", func() error {
			if err := os.WriteFile(at("tmp"), []byte("new\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(at("tmp"), at("b.txt"))
		}, syscall.ENOSPC},
		{"read ok under write fault", func() error { _, err := os.ReadFile(at("e/y")); return err }, nil},
		{"write fault", func() error { return os.WriteFile(at("e/y"), []byte("z"), 0o644) }, syscall.EACCES},
		{"open dir fault", func() error { _, err := os.ReadDir(at("e")); return err }, syscall.ENOENT},
		{"readlink fault", func() error { _, err := os.Readlink(at("ln")); return err }, syscall.ELOOP},
		{"link fault", func() error { return os.Link(at("d/x"), at("x2")) }, syscall.EMLINK},
		{"plain rename", func() error { return os.Rename(at("tmp"), at("c.txt")) }, nil},
		{"listing", func() error {
			es, err := os.ReadDir(mnt)
			if err == nil && len(es) != 6 {
				return errors.New("want 6 entries (a.txt b.txt c.txt d e ln)")
			}
			return err
		}, nil},
	}
	for _, tt := range tests {
		err := tt.op()
		if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
	// The rename failed as a whole: b.txt is unchanged on disk.
	if b, err := os.ReadFile(filepath.Join(src, "b.txt")); err != nil || string(b) != "two\n" {
		t.Errorf("b.txt on disk: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(src, "c.txt")); err != nil || string(b) != "new\n" {
		t.Errorf("c.txt on disk: %q, %v", b, err)
	}
}

// TestOwnerAndPermissions: as root, the mount lets another user in, checks
// permissions as the disk would, and a file that user creates is theirs.
func TestOwnerAndPermissions(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (to run as nobody)")
	}
	src, mnt := mount(t, nil)
	if err := os.Chmod(src, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(mnt), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(src, "a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `cat ` + mnt + `/b.txt >/dev/null || exit 10
cat ` + mnt + `/a.txt 2>/dev/null && exit 11
echo hi > ` + mnt + `/mine || exit 12
exit 0`
	cmd := execAsNobody(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(src, "mine"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Uid != 65534 {
		t.Errorf("a file nobody created belongs to uid %d", st.Uid)
	}
}

// execAsNobody runs a shell script as uid and gid 65534.
func execAsNobody(script string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd
}

// TestSweep: the mount of a process killed with SIGKILL is left behind;
// Sweep unmounts it and leaves a live process's mount alone.
func TestSweep(t *testing.T) {
	if os.Getenv("FUSEFAULT_HELPER_MNT") != "" {
		return // the helper below runs as TestSweepHelper
	}
	_, live := mount(t, nil)
	dir := t.TempDir()
	src, mnt := filepath.Join(dir, "src"), filepath.Join(dir, "mnt")
	if err := errors.Join(os.Mkdir(src, 0o755), os.Mkdir(mnt, 0o755), os.WriteFile(filepath.Join(src, "f"), []byte("x"), 0o644)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSweepHelper$")
	cmd.Env = append(os.Environ(), "FUSEFAULT_HELPER_SRC="+src, "FUSEFAULT_HELPER_MNT="+mnt)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the helper did not mount: %q, %v", line, err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !mounted(t, mnt) {
		t.Fatal("the killed helper's mount is gone before Sweep: nothing to test")
	}
	swept, err := Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(swept, mnt) {
		t.Errorf("Sweep unmounted %q, want %s among them", swept, mnt)
	}
	if mounted(t, mnt) {
		t.Errorf("%s is still mounted", mnt)
	}
	if _, err := os.Stat(mnt); !os.IsNotExist(err) {
		t.Errorf("the mount point %s is still there: %v", mnt, err)
	}
	if !mounted(t, live) {
		t.Errorf("Sweep unmounted %s, which a live process serves", live)
	}
}

// TestSweepHelper mounts $FUSEFAULT_HELPER_SRC at $FUSEFAULT_HELPER_MNT,
// says ready and waits to be killed (for TestSweep).
func TestSweepHelper(t *testing.T) {
	src, mnt := os.Getenv("FUSEFAULT_HELPER_SRC"), os.Getenv("FUSEFAULT_HELPER_MNT")
	if mnt == "" {
		t.Skip("a helper of TestSweep")
	}
	if _, err := New(src, mnt, nil); err != nil {
		t.Fatal(err)
	}
	fmt.Print("ready\n")
	select {}
}

// mounted reports whether dir is a fusefault mount point.
func mounted(t *testing.T, dir string) bool {
	t.Helper()
	ms, err := mountinfo.GetMounts(mountinfo.SingleEntryFilter(dir))
	if err != nil {
		t.Fatal(err)
	}
	return len(ms) == 1 && ms[0].FSType == "fuse."+fsSubtype
}

// TestWriteAndFsyncFaults: write and fsync faults count the file handles
// written (synced) at or below their path, whatever the files' names, and
// fail the Nth; a delay holds the failing request back.
func TestWriteAndFsyncFaults(t *testing.T) {
	src, mnt := mount(t, []Fault{
		{Op: OpWrite, Path: "d", Errno: syscall.ENOSPC, Nth: 2},
		{Op: OpFsync, Path: ".", Errno: syscall.EIO, Nth: 2, Delay: 100 * time.Millisecond},
	})
	at := func(p string) string { return filepath.Join(mnt, p) }
	open := func(p string, flag int) *os.File {
		t.Helper()
		f, err := os.OpenFile(at(p), flag, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	const create = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	tmp, inPlace, third, outside := open("d/.tmp1", create), open("d/x", os.O_WRONLY|os.O_TRUNC), open("d/t3", create), open("e/z", create)
	check := func(what string, err, want error) {
		t.Helper()
		if (want == nil) != (err == nil) || (want != nil && !errors.Is(err, want)) {
			t.Errorf("%s: got %v, want %v", what, err, want)
		}
	}
	_, err := outside.WriteString("z")
	check("write outside d", err, nil)
	_, err = inPlace.WriteString("")
	check("empty write", err, nil)
	_, err = tmp.WriteString("1")
	check("first file written under d", err, nil)
	_, err = inPlace.WriteString("2")
	check("second file written under d", err, syscall.ENOSPC)
	_, err = inPlace.WriteString("2")
	check("the second file's next write", err, syscall.ENOSPC)
	_, err = third.WriteString("3")
	check("third file", err, nil)
	check("first fsync", tmp.Sync(), nil)
	start := time.Now()
	check("second fsync", third.Sync(), syscall.EIO)
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("the failing fsync returned after %v, before its 100ms delay", d)
	}
	check("third fsync", outside.Sync(), nil)
	dir := open("d", os.O_RDONLY)
	if err := dir.Sync(); err != nil && !errors.Is(err, syscall.ENOTSUP) && !errors.Is(err, syscall.EINVAL) {
		t.Errorf("a directory's fsync is not counted: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(src, "d/x")); err != nil || string(b) != "" {
		t.Errorf("d/x on disk: %q, %v; want truncated and never written", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(src, "d/.tmp1")); err != nil || string(b) != "1" {
		t.Errorf("d/.tmp1 on disk: %q, %v", b, err)
	}
}

// TestDelayedOpenAndReaddirFaults: a delayed open fault holds back every
// open of its path (a file's and a directory's) before it fails; a delayed
// readdir fault's directory opens, and its listing waits before it fails.
func TestDelayedOpenAndReaddirFaults(t *testing.T) {
	const delay = 100 * time.Millisecond
	_, mnt := mount(t, []Fault{
		{Op: OpOpen, Path: "a.txt", Errno: syscall.EIO, Delay: delay},
		{Op: OpOpen, Path: "e", Errno: syscall.EACCES, Delay: delay},
		{Op: OpReaddir, Path: "d", Errno: syscall.EIO, Delay: delay},
	})
	at := func(p string) string { return filepath.Join(mnt, p) }
	tests := []struct {
		name string
		op   func() error
		want error // nil: succeeds
		slow bool  // the call waits for the delay
	}{
		{"open a file", func() error { _, err := os.ReadFile(at("a.txt")); return err }, syscall.EIO, true},
		{"create over it", func() error { return os.WriteFile(at("a.txt"), []byte("x"), 0o644) }, syscall.EIO, true},
		{"open a dir", func() error { _, err := os.ReadDir(at("e")); return err }, syscall.EACCES, true},
		{"list a dir", func() error { _, err := os.ReadDir(at("d")); return err }, syscall.EIO, true},
		{"open in the listed dir", func() error { _, err := os.ReadFile(at("d/x")); return err }, nil, false},
		{"other file", func() error { _, err := os.ReadFile(at("b.txt")); return err }, nil, false},
	}
	for _, tt := range tests {
		start := time.Now()
		err := tt.op()
		took := time.Since(start)
		if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
		if tt.slow && took < delay {
			t.Errorf("%s: failed after %v, before its %v delay", tt.name, took, delay)
		}
	}
}

// TestDelayNeedsADelayedOp: only write, fsync, open and readdir faults take
// a delay, only write and fsync an Nth.
func TestDelayNeedsADelayedOp(t *testing.T) {
	for _, f := range []Fault{
		{Op: OpLstat, Path: "a.txt", Errno: syscall.EIO, Delay: time.Second},
		{Op: OpReaddir, Path: "d", Errno: syscall.EIO, Nth: 2},
		{Op: OpOpen, Path: "a.txt", Errno: syscall.EIO, Delay: -time.Second},
		{Op: OpOpen, Path: "a.txt", Delay: time.Second}, // only a readdir may be slow without an errno
		{Op: OpReaddir, Path: "d"},                      // neither errno nor delay
	} {
		if m, err := New(t.TempDir(), t.TempDir(), []Fault{f}); err == nil {
			_ = m.Unmount()
			t.Errorf("New accepted %+v", f)
		}
	}
}

// TestSlowReaddirAndOps: a readdir fault without an errno is a slow
// listing, served after its delay; the mount counts the requests naming a
// path it serves, and none when nothing touches it.
func TestSlowReaddirAndOps(t *testing.T) {
	const delay = 100 * time.Millisecond
	src, mnt := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "d", "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Usable(); err != nil {
		t.Skip(err)
	}
	m, err := New(src, mnt, []Fault{{Op: OpReaddir, Path: "d", Delay: delay}})
	if err != nil {
		t.Skipf("FUSE is not usable here: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Unmount(); err != nil {
			t.Error(err)
		}
	})
	start := time.Now()
	ents, err := os.ReadDir(filepath.Join(mnt, "d"))
	if took := time.Since(start); err != nil || took < delay || len(ents) != 1 || ents[0].Name() != "e" {
		t.Errorf("slow listing: %v, %v after %v; want [e] after at least %v", ents, err, took, delay)
	}
	n := m.Ops()
	if n < 3 { // LOOKUP d, OPENDIR d, its listing
		t.Errorf("Ops() = %d after listing d, want at least 3", n)
	}
	time.Sleep(50 * time.Millisecond)
	if again := m.Ops(); again != n {
		t.Errorf("Ops() went from %d to %d with nothing touching the mount", n, again)
	}
}
