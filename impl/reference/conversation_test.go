package reference_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// exchange is one request of a conversation and what its answer must be.
type exchange struct {
	op       string // fcp.OpCall (default) or fcp.OpReset
	tool     string
	args     any
	wantKind string // "" for success
	content  string // for a successful call, when not ""
}

// patchArgs is apply_patch's arguments for an LP1 body.
func patchArgs(body string) map[string]string {
	return map[string]string{"patch": "LP1\n" + body + "END\n"}
}

// readA reads the fixture's a.txt.
func readA() exchange {
	return exchange{tool: "read_file", args: map[string]string{"path": "a.txt"}, content: "hello"}
}

// patchA turns a.txt's "hello" into "bye".
func patchA() map[string]string { return patchArgs("F a.txt\nR\nhello\n.\nbye\n.\n") }

// converse runs exchanges through handle, checking every answer.
func converse(t *testing.T, dir string, handle func(fcp.Request) fcp.Response, xs []exchange) {
	t.Helper()
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		seq := int64(i + 1)
		var req fcp.Request
		if x.op == fcp.OpReset {
			req = fcp.Request{FCP: 1, Seq: seq, Op: fcp.OpReset}
		} else {
			args, err := json.Marshal(x.args)
			if err != nil {
				t.Fatal(err)
			}
			req = callReq(seq, x.tool, string(args), dir, "")
		}
		resp := handle(req)
		got := check(t, v, req.Op, resp)
		switch {
		case resp.Seq != seq:
			t.Errorf("exchange %d: seq %d", i+1, resp.Seq)
		case x.wantKind == "" && (resp.OK == nil || !*resp.OK):
			t.Errorf("exchange %d (%s %s): %s", i+1, req.Op, x.tool, got)
		case x.wantKind != "" && (resp.Error == nil || resp.Error.Kind != x.wantKind):
			t.Errorf("exchange %d (%s): %s, want %s", i+1, x.tool, got, x.wantKind)
		case x.content != "" && (resp.Content == nil || *resp.Content != x.content):
			t.Errorf("exchange %d (%s): %s, want content %q", i+1, x.tool, got, x.content)
		}
	}
}

func TestConversation(t *testing.T) {
	tests := []struct {
		name  string
		xs    []exchange
		wantA string
	}{
		{"read then patch", []exchange{
			readA(),
			{tool: "apply_patch", args: patchA(), content: "modified: a.txt"},
		}, "bye"},
		{"patch without a read", []exchange{
			{tool: "apply_patch", args: patchA(), wantKind: "StaleFile"},
		}, "hello"},
		{"reset forgets the read", []exchange{
			readA(),
			{op: fcp.OpReset},
			{tool: "apply_patch", args: patchA(), wantKind: "StaleFile"},
		}, "hello"},
		{"patch twice after one read (I-AP-05)", []exchange{
			readA(),
			{tool: "apply_patch", args: patchA(), content: "modified: a.txt"},
			{tool: "apply_patch", args: patchArgs("F a.txt\nR\nbye\n.\nagain\n.\n"), content: "modified: a.txt"},
		}, "again"},
		{"written file must be read before patching (I-WR-04)", []exchange{
			{tool: "write_file", args: map[string]string{"path": "w.txt", "content": "w\n"}},
			{tool: "apply_patch", args: patchArgs("F w.txt\nN -\n"), wantKind: "StaleFile"},
			{tool: "read_file", args: map[string]string{"path": "w.txt"}, content: "w\n"},
			{tool: "apply_patch", args: patchArgs("F w.txt\nN -\n"), content: "modified: w.txt"},
		}, "hello"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := root(t)
			r := newRef(t)
			converse(t, dir, func(req fcp.Request) fcp.Response { return r.Handle(context.Background(), req) }, tc.xs)
			if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != tc.wantA {
				t.Errorf("a.txt = %q, want %q", got, tc.wantA)
			}
		})
	}
}

func TestConversationsIndependent(t *testing.T) {
	dir := root(t)
	r := newRef(t)
	one, two := session.New(), session.New()
	in := func(st *session.State) func(fcp.Request) fcp.Response {
		return func(req fcp.Request) fcp.Response { return r.HandleIn(context.Background(), req, fsys.OS(), st) }
	}
	converse(t, dir, in(one), []exchange{readA()})
	// Neither the other conversation nor the reference's own saw the read.
	converse(t, dir, in(two), []exchange{{tool: "apply_patch", args: patchA(), wantKind: "StaleFile"}})
	converse(t, dir, func(req fcp.Request) fcp.Response { return r.Handle(context.Background(), req) },
		[]exchange{{tool: "apply_patch", args: patchA(), wantKind: "StaleFile"}})
	// A reset of another conversation leaves this one alone.
	converse(t, dir, in(two), []exchange{{op: fcp.OpReset}})
	converse(t, dir, in(one), []exchange{{tool: "apply_patch", args: patchA(), content: "modified: a.txt"}})
	// A nil state is the reference's own conversation.
	converse(t, dir, in(nil), []exchange{readA2()})
	converse(t, dir, func(req fcp.Request) fcp.Response { return r.Handle(context.Background(), req) },
		[]exchange{{tool: "apply_patch", args: patchArgs("F a.txt\nN +\n"), content: "modified: a.txt"}})
}

// readA2 reads a.txt after patchA.
func readA2() exchange {
	return exchange{tool: "read_file", args: map[string]string{"path": "a.txt"}, content: "bye"}
}
