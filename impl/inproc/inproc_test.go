package inproc_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

func TestTarget(t *testing.T) {
	tgt, err := inproc.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	caps := tgt.Caps()
	if !caps.Faults || !caps.Stateful || !caps.Unprivileged {
		t.Errorf("Caps = %+v, want faults, state and an unprivileged user", caps)
	}
	if root := os.Geteuid() == 0; root != (caps.Owner != nil) {
		t.Errorf("Caps.Owner = %v as uid %d: fixtures belong to the emulated user exactly when running as root", caps.Owner, os.Geteuid())
	}
	hello, err := tgt.Hello(context.Background())
	if err != nil || hello.Implementation == nil || hello.Implementation.Name != reference.Name {
		t.Fatalf("Hello = %+v, %v", hello, err)
	}

	// Not t.TempDir: its parent is 0700, which the emulated user cannot
	// search when the test runs as root.
	dir, err := os.MkdirTemp("", "inproc-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	read := fcp.Request{Op: fcp.OpCall, Call: &fcp.Call{ID: "1", Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)},
		Ctx: &fcp.Ctx{WorkingDir: dir}}
	tests := []struct {
		name   string
		faults []fixture.Fault
		want   string // in the content or the error message
	}{
		{"no fault", nil, "one"},
		{"an injected EIO", []fixture.Fault{{Op: "open", Path: filepath.Join(dir, "a.txt"), Errno: "EIO"}}, "input/output error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conv, err := tgt.Open(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conv.Release(nil)
			rep, err := conv.Do(context.Background(), read, tt.faults)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			switch r := rep.Response; {
			case r.Content != nil:
				got = *r.Content
				if rep.ContentBytes != int64(len(got)) {
					t.Errorf("ContentBytes = %d, want %d", rep.ContentBytes, len(got))
				}
			case r.Error != nil:
				got = r.Error.Message
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("reply %q does not contain %q", got, tt.want)
			}
		})
	}

	// A fault the fixture library did not validate is an error of the
	// exchange, which errors the case.
	conv, _ := tgt.Open(context.Background())
	if _, err := conv.Do(context.Background(), read, []fixture.Fault{{Op: "open", Path: "a.txt", Errno: "EIO", Line: 3}}); err == nil ||
		!strings.Contains(err.Error(), "line 3") {
		t.Errorf("relative fault path: err = %v, want one naming line 3", err)
	}
	if _, err := conv.Do(context.Background(), read, []fixture.Fault{{Op: "open", Path: dir, Errno: "EBOGUS", Line: 4}}); err == nil ||
		!strings.Contains(err.Error(), "line 4") {
		t.Errorf("unknown errno: err = %v, want one naming line 4", err)
	}
}
