package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// A runner that is not root owns the fixture's unreadable entries and
// reads them all the same; the snapshot shows their own modes, and the
// modes are left as they were.
func TestSnapshotReadsUnreadableEntries(t *testing.T) {
	base := t.TempDir()
	wo := filepath.Join(base, "wo")
	if err := os.Mkdir(wo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wo, "new.txt"), []byte("fresh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(base, "locked.txt")
	if err := os.WriteFile(locked, []byte("secret\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(wo, 0o300); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(wo, 0o755) })

	snap, err := snapshot(base)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	for path, want := range map[string][2]string{
		"wo":         {"dir", "0300"},
		"wo/new.txt": {"file", "0644"},
		"locked.txt": {"file", "0000"},
	} {
		n, ok := snap[path]
		if !ok || n.Type != want[0] || n.Mode != want[1] {
			t.Errorf("snapshot[%q] = %+v (present %v), want type %s mode %s", path, n, ok, want[0], want[1])
		}
	}
	if got := snap["locked.txt"].Content; got != "secret\n" {
		t.Errorf("locked.txt content %q, want %q", got, "secret\n")
	}
	for p, want := range map[string]os.FileMode{wo: 0o300, locked: 0} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode after the snapshot %v (err %v), want %04o", p, fi.Mode().Perm(), err, want)
		}
	}
}
