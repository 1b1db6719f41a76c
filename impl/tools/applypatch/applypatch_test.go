package applypatch

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

func TestMetadata(t *testing.T) {
	tl := Tool{}
	if tl.Name() != "apply_patch" || tl.Description() != "Apply an LP1 patch to files" ||
		!tl.SideEffecting() || tl.RequiresApproval() || tl.RiskLevel() != tool.Medium {
		t.Errorf("metadata = %q %q side=%v approval=%v risk=%v", tl.Name(), tl.Description(),
			tl.SideEffecting(), tl.RequiresApproval(), tl.RiskLevel())
	}
	reg, err := tool.NewRegistry(tl)
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	for _, args := range []string{`{}`, `{"patch":1}`, `{"patch":"x","extra":true}`, `{"patch":null}`} {
		if err := reg.Validate(Name, json.RawMessage(args)); err == nil {
			t.Errorf("schema accepts %s", args)
		}
	}
	if err := reg.Validate(Name, json.RawMessage(`{"patch":"LP1\nEND\n"}`)); err != nil {
		t.Errorf("schema refuses a patch: %v", err)
	}
	cfg := func(s string) config.Config {
		c, err := config.Parse(json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if got := tl.Timeout(cfg(`{}`)); got != 30*time.Second {
		t.Errorf("default Timeout = %v, want 30s", got)
	}
	if got := tl.Timeout(cfg(`{"tools":{"timeouts":{"file_operations_seconds":7,"default_seconds":1}}}`)); got != 7*time.Second {
		t.Errorf("Timeout = %v, want file_operations_seconds 7s", got)
	}
}

func TestApprovalSummary(t *testing.T) {
	long := strings.Repeat("d/", 60) + "f.txt"
	tests := []struct {
		name, patch, tools string
		want               string
		wantKind           toolerr.Kind
	}{
		{"two files", patch("F a.txt", "T", "x", ".", "F b.txt", "T", "y", "."), "",
			"Apply patch to 2 file(s): a.txt, b.txt", ""},
		{"repeated path counted once", patch("F a.txt", "T", "x", ".", "F b.txt", "N +", "F a.txt", "N -"), "",
			"Apply patch to 2 file(s): a.txt, b.txt", ""},
		{"quoted path", patch(`F "my file.txt"`, "N +"), "",
			"Apply patch to 1 file(s): my file.txt", ""},
		{"no files", patch(), "", "Apply patch to 0 file(s)", ""},
		{"secret redacted", patch("F token=abc123.txt", "N +"), "",
			"Apply patch to 1 file(s): token=[REDACTED]", ""},
		{"long list cut", patch("F "+long, "N +", "F "+long+"2", "N +"), "",
			("Apply patch to 2 file(s): " + long + ", " + long + "2")[:199] + "…", ""},
		{"invalid patch", "LP1\nF a.txt\nX\nEND\n", "", "", toolerr.PatchFailed},
		{"too large", patch("F a.txt", "N +"), `{"apply_patch":{"max_patch_bytes":10}}`, "", toolerr.BadArgs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"patch": tc.patch})
			got, err := Tool{}.ApprovalSummary(args, tooltest.Config(t, tc.tools))
			if tc.wantKind != "" {
				te, ok := err.(*toolerr.Error)
				if !ok || te.Kind != tc.wantKind {
					t.Fatalf("ApprovalSummary error = %v, want %s", err, tc.wantKind)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ApprovalSummary = %q, %v; want %q", got, err, tc.want)
			}
			if utf8.RuneCountInString(got) > 200 {
				t.Errorf("summary has %d characters", utf8.RuneCountInString(got))
			}
		})
	}
}

func TestExecute(t *testing.T) {
	tests := []struct {
		name    string
		call    call
		want    string            // output on success
		files   map[string]string // expected content after the call
		errKind toolerr.Kind
		errFile string
		errMsg  string // substring of the message
	}{
		{name: "modify one file",
			call: call{patch: patch("F a.txt", "R", "two", ".", "TWO", "."), read: []string{"a.txt"}},
			want: "modified: a.txt", files: map[string]string{"a.txt": "one\nTWO\nthree\n"}},
		{name: "two files in patch order",
			call:  call{patch: patch("F b.txt", "E", "beta", ".", "F a.txt", "B", "zero", "."), read: []string{"a.txt", "b.txt"}},
			want:  "modified: b.txt\nmodified: a.txt",
			files: map[string]string{"a.txt": "zero\none\ntwo\nthree\n", "b.txt": "alpha\ngamma\n"}},
		{name: "no change",
			call: call{patch: patch("F a.txt", "R", "two", ".", "two", "."), read: []string{"a.txt"}},
			want: "No changes applied.", files: map[string]string{"a.txt": "one\ntwo\nthree\n"}},
		{name: "unchanged file left out of the output",
			call: call{patch: patch("F a.txt", "N +", "F b.txt", "T", "delta", "."), read: []string{"a.txt", "b.txt"}},
			want: "modified: b.txt", files: map[string]string{"b.txt": "alpha\nbeta\ngamma\ndelta\n"}},
		{name: "empty patch", call: call{patch: patch()}, want: "No changes applied."},
		{name: "repeated sections apply in order (I-AP-03)",
			call: call{patch: patch("F a.txt", "R", "two", ".", "2", ".", "F b.txt", "N -", "F a.txt", "R", "2", ".", "deux", "."),
				read: []string{"a.txt", "b.txt"}},
			want:  "modified: a.txt\nmodified: b.txt",
			files: map[string]string{"a.txt": "one\ndeux\nthree\n", "b.txt": "alpha\nbeta\ngamma"}},
		{name: "two spellings are one file",
			call: call{patch: patch("F a.txt", "R", "one", ".", "1", ".", "F ./a.txt", "R", "1", ".", "uno", "."), read: []string{"a.txt"}},
			want: "modified: a.txt", files: map[string]string{"a.txt": "uno\ntwo\nthree\n"}},
		{name: "create with T (I-AP-01)",
			call: call{patch: patch("F new.txt", "T", "hello", ".")},
			want: "created: new.txt", files: map[string]string{"new.txt": "hello"}},
		{name: "create with a final newline",
			call: call{patch: patch("F new.txt", "T", "hello", ".", "N +")},
			want: "created: new.txt", files: map[string]string{"new.txt": "hello\n"}},
		{name: "create with B in a subdirectory",
			call: call{patch: patch("F sub/new.txt", "B", "top", ".", "N -")},
			want: "created: sub/new.txt", files: map[string]string{"sub/new.txt": "top"}},
		{name: "create with an empty block",
			call: call{patch: patch("F empty.txt", "T", ".")},
			want: "created: empty.txt", files: map[string]string{"empty.txt": ""}},
		{name: "created and modified",
			call: call{patch: patch("F a.txt", "E", "one", ".", "F new.txt", "T", "n", "."), read: []string{"a.txt"}},
			want: "modified: a.txt\ncreated: new.txt", files: map[string]string{"a.txt": "two\nthree\n", "new.txt": "n"}},
		{name: "CRLF kept",
			call: call{patch: patch("F crlf.txt", "I", "one", ".", "one and a half", "."), read: []string{"crlf.txt"}},
			want: "modified: crlf.txt", files: map[string]string{"crlf.txt": "one\r\none and a half\r\ntwo\r\n"}},
		{name: "missing final newline kept",
			call: call{patch: patch("F nonl.txt", "R", "last", ".", "end", "."), read: []string{"nonl.txt"}},
			want: "modified: nonl.txt", files: map[string]string{"nonl.txt": "first\nend"}},
		{name: "symlink inside the sandbox patches its target",
			call: call{patch: patch("F link-a", "E", "three", "."), read: []string{"a.txt"}},
			want: "modified: link-a", files: map[string]string{"a.txt": "one\ntwo\n"}},

		// Errors.
		{name: "patch does not parse (I-AP-04)",
			call:    call{patch: "LP1\nF a.txt\nQ\nEND\n", read: []string{"a.txt"}},
			errKind: toolerr.PatchFailed, errFile: "", errMsg: "line 3: "},
		{name: "operation fails",
			call:    call{patch: patch("F a.txt", "R", "nope", ".", "x", "."), read: []string{"a.txt"}},
			errKind: toolerr.PatchFailed, errFile: "a.txt", errMsg: "line 3: "},
		{name: "later section fails, nothing written",
			call:    call{patch: patch("F a.txt", "N -", "F b.txt", "N -", "F a.txt", "E", "nope", "."), read: []string{"a.txt", "b.txt"}},
			errKind: toolerr.PatchFailed, errFile: "a.txt", errMsg: "line 7: "},
		{name: "not read (FR-TOOL-PATCH-02a)",
			call:    call{patch: patch("F a.txt", "N -")},
			errKind: toolerr.StaleFile, errFile: "a.txt", errMsg: "File was not read before patching"},
		{name: "no session means nothing read",
			call:    call{patch: patch("F a.txt", "N -"), noSess: true},
			errKind: toolerr.StaleFile, errFile: "a.txt", errMsg: "File was not read before patching"},
		{name: "read through a symlink counts for its target",
			call: call{patch: patch("F a.txt", "N -"), read: []string{"link-a"}},
			want: "modified: a.txt", files: map[string]string{"a.txt": "one\ntwo\nthree"}},
		{name: "missing file with R",
			call:    call{patch: patch("F nope.txt", "R", "a", ".", "b", ".")},
			errKind: toolerr.PatchFailed, errFile: "nope.txt", errMsg: "line 3: file not found"},
		{name: "missing file with N first",
			call:    call{patch: patch("F nope.txt", "N +", "T", "x", ".")},
			errKind: toolerr.PatchFailed, errFile: "nope.txt", errMsg: "file not found"},
		{name: "section without operations does not parse",
			call:    call{patch: patch("F nope.txt")},
			errKind: toolerr.PatchFailed, errFile: "", errMsg: "line 2: "},
		{name: "missing directory not created",
			call:    call{patch: patch("F nodir/new.txt", "T", "x", ".")},
			errKind: toolerr.PatchFailed, errFile: "nodir/new.txt", errMsg: "directory does not exist"},
		{name: "directory",
			call:    call{patch: patch("F sub", "T", "x", ".")},
			errKind: toolerr.PatchFailed, errFile: "sub", errMsg: "a directory, not a regular file"},
		{name: "dangling symlink",
			call:    call{patch: patch("F dangling", "T", "x", ".")},
			errKind: toolerr.PatchFailed, errFile: "dangling", errMsg: "a symlink, not a regular file"},
		{name: "mixed line endings",
			call:    call{patch: patch("F mixed.txt", "N -"), read: []string{"mixed.txt"}},
			errKind: toolerr.PatchFailed, errFile: "mixed.txt", errMsg: "mixed line endings"},
		{name: "outside the sandbox",
			call:    call{patch: patch("F ../outside/o.txt", "N -")},
			errKind: toolerr.SandboxViolation, errMsg: "outside the sandbox"},
		{name: "symlink leaving the sandbox",
			call:    call{patch: patch("F link-outside", "N -")},
			errKind: toolerr.SandboxViolation, errMsg: "outside the sandbox"},
		{name: "denied pattern",
			call:    call{patch: patch("F secret.pem", "N -"), read: []string{"secret.pem"}},
			errKind: toolerr.SandboxViolation, errMsg: "denied pattern"},
		{name: "sandbox checked before staleness",
			call:    call{patch: patch("F a.txt", "N -", "F /etc/passwd", "N -")},
			errKind: toolerr.SandboxViolation},
		{name: "too large",
			call:    call{patch: patch("F a.txt", "N -"), read: []string{"a.txt"}, config: `{"apply_patch":{"max_patch_bytes":8}}`},
			errKind: toolerr.BadArgs, errMsg: "max_patch_bytes"},
		{name: "invalid config",
			call:    call{patch: patch("F a.txt", "N -"), config: `{"apply_patch":{"max_patch_bytes":0}}`},
			errKind: toolerr.ExecutionFailed, errMsg: "max_patch_bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace.Build(t, fixture()...)
			before := snapshot(t, root)
			out, te, _ := run(t, root, tc.call)
			noTemps(t, root)
			if tc.errKind != "" {
				if te == nil {
					t.Fatalf("succeeded with %q, want %s", out, tc.errKind)
				}
				if te.Kind != tc.errKind || te.File != tc.errFile || !strings.Contains(te.Message, tc.errMsg) {
					t.Errorf("error = %s file=%q %q; want %s file=%q containing %q", te.Kind, te.File, te.Message, tc.errKind, tc.errFile, tc.errMsg)
				}
				if (te.Kind == toolerr.StaleFile) && te.Message != tc.errMsg {
					t.Errorf("StaleFile message = %q, want exactly %q", te.Message, tc.errMsg)
				}
				sameTree(t, before, snapshot(t, root))
				return
			}
			if te != nil {
				t.Fatalf("error %s file=%q: %s", te.Kind, te.File, te.Message)
			}
			if out != tc.want {
				t.Errorf("output = %q, want %q", out, tc.want)
			}
			after := snapshot(t, root)
			for rel, want := range tc.files {
				if got := readFile(t, root, rel); got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
			for p, b := range before { // everything else is untouched
				if _, named := tc.files[strings.TrimPrefix(p, "ws/")]; !named && after[p] != b {
					t.Errorf("%s changed but the test names no new content for it", p)
				}
			}
		})
	}
}

func TestModes(t *testing.T) {
	root := workspace.Build(t, fixture()...)
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	_, te, _ := run(t, root, call{patch: patch("F script.sh", "T", "exit 0", ".", "F new.txt", "T", "x", "."), read: []string{"script.sh"}})
	if te != nil {
		t.Fatal(te)
	}
	for rel, want := range map[string]fs.FileMode{"script.sh": 0o755, "new.txt": 0o644} {
		fi, err := os.Lstat(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s mode = %v, want %v", rel, fi.Mode(), want)
		}
	}
}

func TestStaleContent(t *testing.T) {
	root := workspace.Build(t, fixture()...)
	before := snapshot(t, root)
	before["ws/a.txt"] = entry{mode: 0o644, data: "changed\n"}
	// Mark a.txt read, then change it behind the conversation's back.
	c := call{patch: patch("F b.txt", "N -", "F a.txt", "N -"), read: []string{"a.txt", "b.txt"},
		afterRead: func() {
			if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("changed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}}
	_, te, _ := run(t, root, c)
	if te == nil || te.Kind != toolerr.StaleFile || te.File != "a.txt" || te.Message != "File content changed since last read" {
		t.Fatalf("error = %+v, want StaleFile a.txt \"File content changed since last read\"", te)
	}
	sameTree(t, before, snapshot(t, root)) // b.txt, first in the patch, untouched
	noTemps(t, root)
}

func TestSecondFileRejectedFirstUntouched(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		read  []string
		kind  toolerr.Kind
	}{
		{"sandbox violation on the 2nd file", patch("F a.txt", "N -", "F ../outside/o.txt", "N -"), []string{"a.txt"}, toolerr.SandboxViolation},
		{"stale 2nd file", patch("F a.txt", "N -", "F b.txt", "N -"), []string{"a.txt"}, toolerr.StaleFile},
		{"missing 2nd file", patch("F a.txt", "N -", "F gone.txt", "E", "x", "."), []string{"a.txt"}, toolerr.PatchFailed},
		{"failing op in the 2nd file", patch("F a.txt", "N -", "F b.txt", "E", "x", "."), []string{"a.txt", "b.txt"}, toolerr.PatchFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace.Build(t, fixture()...)
			before := snapshot(t, root)
			_, te, _ := run(t, root, call{patch: tc.patch, read: tc.read})
			if te == nil || te.Kind != tc.kind {
				t.Fatalf("error = %+v, want %s", te, tc.kind)
			}
			sameTree(t, before, snapshot(t, root))
			noTemps(t, root)
		})
	}
}

// TestAtomicity is T-PATCH-01: whichever file's write or rename fails, the
// tree is byte-identical afterwards and no temp file remains.
func TestAtomicity(t *testing.T) {
	p3 := patch("F a.txt", "T", "A", ".", "F b.txt", "T", "B", ".", "F c.txt", "T", "C", ".")
	p3new := patch("F a.txt", "T", "A", ".", "F b.txt", "T", "B", ".", "F new.txt", "T", "N", ".")
	read := []string{"a.txt", "b.txt", "c.txt"}
	tmp := func(name string) string { return "." + name + ".apply_patch.tmp" }
	tests := []struct {
		name   string
		patch  string
		faults []fault
		file   string // the file the error names
	}{
		{"write of the 1st file", p3, []fault{{fsys.OpOpenWrite, tmp("a.txt"), syscall.ENOSPC}}, "a.txt"},
		{"write of the middle file", p3, []fault{{fsys.OpOpenWrite, tmp("b.txt"), syscall.EIO}}, "b.txt"},
		{"write of the last file", p3, []fault{{fsys.OpOpenWrite, tmp("c.txt"), syscall.EACCES}}, "c.txt"},
		{"rename of the 1st file", p3, []fault{{fsys.OpRename, "a.txt", syscall.EIO}}, "a.txt"},
		{"rename of the middle file", p3, []fault{{fsys.OpRename, "b.txt", syscall.EIO}}, "b.txt"},
		{"rename of the last file", p3, []fault{{fsys.OpRename, "c.txt", syscall.EXDEV}}, "c.txt"},
		{"link of a new last file", p3new, []fault{{fsys.OpLink, "new.txt", syscall.EPERM}}, "new.txt"},
		{"write of a new last file", p3new, []fault{{fsys.OpOpenWrite, tmp("new.txt"), syscall.EROFS}}, "new.txt"},
		{"rename after a new file", patch("F new.txt", "T", "N", ".", "F a.txt", "T", "A", "."),
			[]fault{{fsys.OpRename, "a.txt", syscall.EIO}}, "a.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace.Build(t, fixture()...)
			before := snapshot(t, root)
			out, te, st := run(t, root, call{patch: tc.patch, read: read, faults: tc.faults})
			if te == nil {
				t.Fatalf("succeeded with %q", out)
			}
			if te.Kind != toolerr.PatchFailed || te.File != tc.file || !strings.Contains(te.Message, "no file was changed") {
				t.Errorf("error = %s file=%q %q; want PatchFailed naming %s", te.Kind, te.File, te.Message, tc.file)
			}
			sameTree(t, before, snapshot(t, root))
			noTemps(t, root)
			// The cache still holds the original content: a retry works.
			if _, ok := st.LastRead(filepath.Join(root, "new.txt")); ok {
				t.Error("a file that was not created is in the read cache")
			}
			out, te, _ = run(t, root, call{patch: tc.patch, read: read})
			if te != nil || !strings.Contains(out, "a.txt") {
				t.Errorf("retry without the fault = %q, %+v", out, te)
			}
		})
	}
}

// TestCacheUpdated is I-AP-05: the patched content can be patched again
// without a new read; an edit made outside the conversation is caught.
func TestCacheUpdated(t *testing.T) {
	root := workspace.Build(t, fixture()...)
	_, te, st := run(t, root, call{patch: patch("F a.txt", "E", "one", ".", "F new.txt", "T", "n", "."), read: []string{"a.txt"}})
	if te != nil {
		t.Fatal(te)
	}
	for _, rel := range []string{"a.txt", "new.txt"} {
		if _, ok := st.LastRead(filepath.Join(root, rel)); !ok {
			t.Errorf("%s is not in the read cache after the patch", rel)
		}
	}
	args, _ := json.Marshal(map[string]string{"patch": patch("F a.txt", "E", "two", ".", "F new.txt", "T", "m", ".")})
	sb := tooltest.Sandbox(t, root)
	tc := &tool.Ctx{FS: afero.NewOsFs(), Sandbox: sb, WorkingDir: root, Session: st}
	out, err := Tool{}.Execute(context.Background(), args, tc)
	if err != nil || out != "modified: a.txt\nmodified: new.txt" {
		t.Fatalf("second patch = %q, %v", out, err)
	}
	if got := readFile(t, root, "a.txt"); got != "three\n" {
		t.Errorf("a.txt = %q", got)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ = json.Marshal(map[string]string{"patch": patch("F a.txt", "N -")})
	_, err = Tool{}.Execute(context.Background(), args, tc)
	if te, ok := err.(*toolerr.Error); !ok || te.Kind != toolerr.StaleFile {
		t.Errorf("patch after an outside edit = %v, want StaleFile", err)
	}
}

// racingFs creates the target itself just before apply_patch links its
// new file into place, as a concurrent creator would.
type racingFs struct {
	afero.Fs
	content string
}

// LstatIfPossible implements afero.Lstater.
func (r racingFs) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	fi, err := fsys.Lstat(r.Fs, name)
	return fi, true, err
}

func (r racingFs) LinkNoReplace(oldname, newname string) error {
	if err := os.WriteFile(newname, []byte(r.content), 0o600); err != nil {
		return err
	}
	return fsys.LinkNoReplace(r.Fs, oldname, newname)
}

func TestRacingCreatorNotOverwritten(t *testing.T) {
	root := workspace.Build(t, fixture()...)
	_, te, _ := run(t, root, call{patch: patch("F a.txt", "T", "A", ".", "F new.txt", "T", "mine", "."), read: []string{"a.txt"},
		fs: func(afs afero.Fs) afero.Fs { return racingFs{Fs: afs, content: "theirs\n"} }})
	if te == nil || te.Kind != toolerr.PatchFailed || te.File != "new.txt" || !strings.Contains(te.Message, "created by someone else") {
		t.Fatalf("error = %+v, want PatchFailed new.txt created by someone else", te)
	}
	if got := readFile(t, root, "new.txt"); got != "theirs\n" {
		t.Errorf("new.txt = %q, want the racer's content", got)
	}
	if got := readFile(t, root, "a.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt = %q, want it restored", got)
	}
	noTemps(t, root)
}

func TestStaleTempNameSkipped(t *testing.T) {
	root := workspace.Build(t, append(fixture(), tooltest.File(".a.txt.apply_patch.tmp", "old temp"))...)
	out, te, _ := run(t, root, call{patch: patch("F a.txt", "N -"), read: []string{"a.txt"}})
	if te != nil || out != "modified: a.txt" {
		t.Fatalf("= %q, %+v", out, te)
	}
	if got := readFile(t, root, ".a.txt.apply_patch.tmp"); got != "old temp" {
		t.Errorf("someone else's temp file = %q, want it untouched", got)
	}
}

func TestCancelledBeforeWriting(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() context.Context
		kind toolerr.Kind
	}{
		{"cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, toolerr.Cancelled},
		{"deadline", func() context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
			t.Cleanup(cancel)
			return ctx
		}, toolerr.Timeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace.Build(t, fixture()...)
			before := snapshot(t, root)
			_, te, _ := run(t, root, call{patch: patch("F a.txt", "N -"), read: []string{"a.txt"}, ctx: tc.ctx()})
			if te == nil || te.Kind != tc.kind {
				t.Fatalf("error = %+v, want %s", te, tc.kind)
			}
			sameTree(t, before, snapshot(t, root))
		})
	}
}

// TestPermissionDenied runs through fsys.PermFs as the file's owner: a
// directory without write permission stops the temp file, and nothing
// changes.
func TestPermissionDenied(t *testing.T) {
	root := workspace.Build(t, append(fixture(), tooltest.Dir("ro"), tooltest.File("ro/f.txt", "f\n"))...)
	ro := filepath.Join(root, "ro")
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(ro, 0o755) })
	before := snapshot(t, root)
	perm := func(afs afero.Fs) afero.Fs { return fsys.NewPermFsAs(afs, os.Getuid(), os.Getgid()) }
	_, te, _ := run(t, root, call{patch: patch("F a.txt", "N -", "F ro/f.txt", "N -"), read: []string{"a.txt", "ro/f.txt"}, fs: perm})
	if te == nil || te.Kind != toolerr.PatchFailed || te.File != "ro/f.txt" || !strings.Contains(te.Message, "permission denied") {
		t.Fatalf("error = %+v, want PatchFailed ro/f.txt permission denied", te)
	}
	sameTree(t, before, snapshot(t, root))
	noTemps(t, root)
	// The same patch without the read-only file goes through PermFs fine.
	out, te, _ := run(t, root, call{patch: patch("F a.txt", "N -"), read: []string{"a.txt"}, fs: perm})
	if te != nil || out != "modified: a.txt" {
		t.Errorf("= %q, %+v", out, te)
	}
}
