package tooltest

import (
	"errors"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// AsError returns err as a *toolerr.Error, failing the test now if it is
// not one (nil included).
func AsError(tb testing.TB, err error) *toolerr.Error {
	tb.Helper()
	var te *toolerr.Error
	if !errors.As(err, &te) {
		tb.Fatalf("error %v (%T) is not a *toolerr.Error", err, err)
	}
	return te
}

// ErrorKind checks that err is a *toolerr.Error of kind with a non-empty
// message containing every one of words (case-insensitive), and returns
// it. A wrong type or kind fails the test now.
func ErrorKind(tb testing.TB, err error, kind toolerr.Kind, words ...string) *toolerr.Error {
	tb.Helper()
	te := AsError(tb, err)
	if te.Kind != kind {
		tb.Fatalf("kind %s (%s), want %s", te.Kind, te.Message, kind)
	}
	if te.Message == "" {
		tb.Errorf("empty message")
	}
	for _, w := range words {
		if !strings.Contains(strings.ToLower(te.Message), strings.ToLower(w)) {
			tb.Errorf("message %q lacks %q", te.Message, w)
		}
	}
	return te
}
