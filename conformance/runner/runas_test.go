package runner

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCheckCommand builds a tree with a 0700 directory and checks, for an
// unprivileged user (computed from the modes, so the test needs no root),
// which path of each command line is named as unreachable.
func TestCheckCommand(t *testing.T) {
	// Not t.TempDir: its parent is 0700.
	dir, err := os.MkdirTemp("", "runas-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string, mode os.FileMode) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pubImpl := write("pub/impl", "#!/bin/sh\nexit 0\n", 0o755)
	pubScript := write("pub/x.py", "print()\n", 0o644)
	write("pub/secret.conf", "x\n", 0o600)
	privImpl := write("private/impl", "#!/bin/sh\nexit 0\n", 0o755)
	privScript := write("private/x.py", "print()\n", 0o644)
	write("pub/noexec", "#!/bin/sh\n", 0o644)
	write("pub/noread", "#!/bin/sh\n", 0o711)
	write("pub/badinterp", "#!"+privImpl+"\n", 0o755)
	if err := os.Chmod(filepath.Join(dir, "private"), 0o700); err != nil {
		t.Fatal(err)
	}
	link := func(rel, target string) string {
		p := filepath.Join(dir, rel)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shim := link("pub/shim", privImpl)
	relShim := link("pub/relshim", "../private/impl")
	okShim := link("pub/okshim", "impl")
	loop := link("pub/loop", "loop")

	nobody := runUser{name: "nobody", uid: 65534, gid: 65534}
	tests := []struct {
		name string
		argv []string
		want string // regexp of the error, "" for none
	}{
		{"reachable executable", []string{pubImpl}, ""},
		{"interpreter and a reachable script", []string{"/bin/sh", pubScript}, ""},
		{"ordinary arguments", []string{pubImpl, "--fcp", "-v", "no-such-file"}, ""},
		{"symlink to a reachable file", []string{okShim}, ""},
		{"executable in a 0700 directory", []string{privImpl},
			`^--run-as nobody: the executable .*/private/impl is not reachable by nobody \(uid 65534\): nobody cannot search .*/private \(mode 0700, owner uid \d+\); put it where`},
		{"script in a 0700 directory", []string{"/usr/bin/env", "python3", privScript},
			`argument 2 of the command line, .*/private/x.py is not reachable by nobody .*: nobody cannot search .*/private \(mode 0700`},
		{"a --flag=FILE argument", []string{pubImpl, "--config=" + filepath.Join(dir, "pub/secret.conf")},
			`argument 1 of the command line, .*/pub/secret.conf is not reachable .*nobody cannot read .*/pub/secret.conf \(mode 0600`},
		{"shim symlinked into a 0700 directory", []string{shim},
			`the executable .*/pub/shim is not reachable .*cannot search .*/private \(mode 0700.*\) \(reached through the symlink .*/pub/shim -> .*/private/impl\)`},
		{"relative symlink", []string{relShim}, `reached through the symlink .*/pub/relshim -> \.\./private/impl`},
		{"not executable", []string{filepath.Join(dir, "pub/noexec")}, `nobody cannot execute .*/pub/noexec \(mode 0644`},
		{"script not readable", []string{filepath.Join(dir, "pub/noread")}, `nobody cannot read \(it is a #! script\) .*/pub/noread`},
		{"interpreter unreachable", []string{filepath.Join(dir, "pub/badinterp")}, `its interpreter .*/private/impl: nobody cannot search .*/private`},
		{"symlink loop", []string{loop}, `too many levels of symbolic links`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkCommand(tt.argv, tt.argv[0], nobody)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("checkCommand(%q) = %v, want nil", tt.argv, err)
			case tt.want == "":
				return
			case err == nil:
				t.Fatalf("checkCommand(%q) = nil, want an error matching %s", tt.argv, tt.want)
			case !regexp.MustCompile(tt.want).MatchString(err.Error()):
				t.Fatalf("checkCommand(%q) =\n%v\nwant a match for %s", tt.argv, err, tt.want)
			}
			var ue *unreachableError
			if !errors.As(err, &ue) || !isHarnessError(err) {
				t.Errorf("error %T is not a harness error", err)
			}
		})
	}

	// The name looked up on PATH is named too.
	if err := checkCommand([]string{privImpl}, "impl", nobody); err == nil || !strings.Contains(err.Error(), `/private/impl ("impl" found on PATH) is not reachable`) {
		t.Errorf("PATH lookup: %v", err)
	}
	// Root is never refused; the runner only checks for another user.
	if err := checkCommand([]string{privImpl, privScript}, privImpl, runUser{name: "root"}); err != nil {
		t.Errorf("as root: %v", err)
	}
	// The fixture dir check names the directory.
	if err := reachable(filepath.Join(dir, "private"), 65534, 65534); err == nil || !strings.Contains(err.Error(), "cannot search") {
		t.Errorf("reachable(private) = %v", err)
	}
	if err := reachable(filepath.Join(dir, "pub"), 65534, 65534); err != nil {
		t.Errorf("reachable(pub) = %v", err)
	}
}
