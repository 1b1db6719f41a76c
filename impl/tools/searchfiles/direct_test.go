package searchfiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// directTree holds what the direct mode must get right on its own: files
// it reports nothing in but the native reader reports (too large,
// unreadable to the emulated user), odd names, symlinks, CR and BOM files
// the stdin mode must search again, and enough files for several chunks.
func directTree(t *testing.T) string {
	t.Helper()
	nodes := []tooltest.Node{
		tooltest.File("big-nomatch.txt", strings.Repeat("x", 300)+"\n"),
		tooltest.File("big-match.txt", strings.Repeat("foo ", 100)+"\n"),
		tooltest.File("crlf-end.txt", "a foo\r\nb foo\r\n"),
		tooltest.File("lone-cr.txt", "foo\rbar\n"),
		tooltest.File("bom-only.txt", "\ufeffbar\n"),
		tooltest.File("bom-foo.txt", "\ufefffoo\n"),
		tooltest.File("new\nline.txt", "foo in a name with a line feed\n"),
		tooltest.File("bad\xffname.txt", "foo in a name that is not UTF-8\n"),
		tooltest.File("-dash.txt", "foo after a dash\n"),
		tooltest.File("-", "foo in a file named like the standard input\n"),
		tooltest.File("colon:name.txt", "foo:1:2\n"),
		tooltest.FileWithMode("secret.txt", "foo nobody may read\n", 0o600),
		tooltest.Link("link.txt", "-dash.txt"),
		tooltest.Dir("many"),
	}
	for i := range 700 {
		body := "nothing here\n"
		if i%97 == 0 {
			body = fmt.Sprintf("foo %d\n", i)
		}
		nodes = append(nodes, tooltest.File(fmt.Sprintf("many/f%03d.txt", i), body))
	}
	return tooltest.Build(t, nodes...)
}

// TestDirectSameAsNative compares the direct mode with the native backend
// on directTree, on the OS filesystem and behind PermFs (where the binary
// can read what the emulated user cannot).
func TestDirectSameAsNative(t *testing.T) {
	backends := externalBackends(t)
	root := directTree(t)
	queries := []string{
		`"query":"foo"`,
		`"query":"foo$","mode":"regex"`,
		`"query":"^.","mode":"regex"`,
		`"query":"\\x{FEFF}","mode":"regex"`,
		`"query":"o\\r","mode":"regex"`,
		`"query":"foo","follow_symlinks":true`,
		`"query":"foo","max_results":3`,
		`"query":"foo","max_files":5`,
		`"query":"foo","context_lines":1`,
	}
	for _, perm := range []bool{false, true} {
		for _, q := range queries {
			args := `{"path":".",` + q + `}`
			want, _, werr := run(t, root, tooltest.Call{Args: args, Perm: perm, Config: backendConfig(backendNative, `"max_file_size_bytes":200`)})
			for _, b := range backends {
				got, _, err := run(t, root, tooltest.Call{Args: args, Perm: perm, Config: backendConfig(b, `"max_file_size_bytes":200`)})
				if fmt.Sprint(werr) != fmt.Sprint(err) || got != want {
					t.Errorf("perm=%v %s with backend %s: %s", perm, args, b, firstDiff(got, want, err, werr))
				}
			}
		}
	}
}

// TestOnDisk: only filesystems whose files are the operating system's get
// the direct mode.
func TestOnDisk(t *testing.T) {
	for _, tc := range []struct {
		name string
		fs   afero.Fs
		want bool
	}{
		{"os", afero.NewOsFs(), true},
		{"perm", fsys.NewPermFs(afero.NewOsFs()), true},
		{"fault over perm", fsys.NewFaultFs(fsys.NewPermFs(afero.NewOsFs()), nil), true},
		{"memory", afero.NewMemMapFs(), false},
		{"perm over memory", fsys.NewPermFs(afero.NewMemMapFs()), false},
		{"read-only", afero.NewReadOnlyFs(afero.NewOsFs()), false},
	} {
		if got := onDisk(tc.fs); got != tc.want {
			t.Errorf("%s: onDisk = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDirectBinaryFails: a binary that fails on every run makes the call
// fail (ExecutionFailed), never a partial result.
func TestDirectBinaryFails(t *testing.T) {
	root := directTree(t)
	bin := t.TempDir() + "/rg"
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ripgrep 14.1.0'; exit 0; fi\necho broken >&2; exit 3\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", strings.TrimSuffix(bin, "/rg")+":"+os.Getenv("PATH"))
	_, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":".","query":"foo"}`, Config: backendConfig(backendRg, "")})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "rg backend failed", "broken")
}

// TestRunDirectStatus: a run that says anything on its standard error, or
// exits 2, could not search some file (ugrep exits 0 when another file
// matched), so its chunk is searched again; a clean run's hits are kept.
func TestRunDirectStatus(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, script string
		wantHits     int
		wantErr      error
	}{
		{"clean", "printf 'a.txt\\0000 3\\n'; exit 0", 1, nil},
		{"no match", "exit 1", 0, nil},
		{"message", "printf 'a.txt\\0000 3\\n'; echo 'ugrep: warning: b.txt: Permission denied' >&2; exit 0", 0, errSomeFailed},
		{"status 2", "printf 'a.txt\\0000 3\\n'; exit 2", 0, errSomeFailed},
	} {
		bin := dir + "/" + strings.ReplaceAll(tc.name, " ", "-")
		if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+tc.script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		q := &extQuery{backend: backendUgrep, path: bin}
		hits, err := q.runDirect(context.Background(), dir, 10, []*item{{abs: dir + "/a.txt"}})
		if !errors.Is(err, tc.wantErr) || len(hits["a.txt"]) != tc.wantHits {
			t.Errorf("%s: hits %v, error %v; want %d hits, error %v", tc.name, hits, err, tc.wantHits, tc.wantErr)
		}
	}
}
