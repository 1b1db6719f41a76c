package applypatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/lp1"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// shout is a Dialect: LP1 as package lp1 reads it, except that "nope" is
// refused, a file holding "beta" does not decode, and every line of a
// patched file is upper-cased.
type shout struct{}

func (shout) Parse(s string) (*lp1.Patch, error) {
	if s == "nope" {
		return nil, errors.New("Dialect says no")
	}
	return lp1.Parse(s)
}

func (shout) Decode(b []byte) (lp1.File, error) {
	if bytes.Contains(b, []byte("beta")) {
		return lp1.File{}, errors.New("cannot decode")
	}
	return lp1.Decode(b)
}

func (shout) Apply(f lp1.File, ops []lp1.Op) (lp1.File, error) {
	f, err := lp1.Apply(f, ops)
	for i := range f.Lines {
		f.Lines[i] = strings.ToUpper(f.Lines[i])
	}
	return f, err
}

// Tool.Dialect reads, decodes and applies every patch; its errors are the
// whole PatchFailed message.
func TestDialect(t *testing.T) {
	tests := []struct {
		name, patch, want string
		errFile, errMsg   string // errMsg: the message's start
	}{
		{"applied", patch("F a.txt", "R", "two", ".", "2", "."), "modified: a.txt", "", ""},
		{"parse error", "nope", "", "", "Dialect says no"},
		{"decode error", patch("F b.txt", "N -"), "", "b.txt", "cannot decode"},
		{"apply error", patch("F a.txt", "E", "four", "."), "", "a.txt", "line 3: E: the match block"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace.Build(t, fixture()...)
			st := session.New()
			markRead(t, st, root, "a.txt", "b.txt")
			args, _ := json.Marshal(map[string]string{"patch": tc.patch})
			out, _, err := tooltest.Run(t, Tool{Dialect: shout{}}, root, tooltest.Call{Args: string(args), Capacity: 1 << 20, Session: st})
			if tc.errMsg == "" {
				if err != nil || out != tc.want || readFile(t, root, "a.txt") != "ONE\n2\nTHREE\n" {
					t.Fatalf("got %q, %v, a.txt %q", out, err, readFile(t, root, "a.txt"))
				}
				return
			}
			te := tooltest.ErrorKind(t, err, toolerr.PatchFailed)
			if te.File != tc.errFile || !strings.HasPrefix(te.Message, tc.errMsg) {
				t.Errorf("error %+v, want file %q message %q", te, tc.errFile, tc.errMsg)
			}
		})
	}
	if _, err := (Tool{Dialect: shout{}}).ApprovalSummary(json.RawMessage(`{"patch":"nope"}`), tooltest.Config(t, "")); err == nil {
		t.Error("ApprovalSummary parsed a patch the dialect refuses")
	}
}
