// Package fcpserver serves a Handler over the Forge Conformance Protocol,
// version 1 (spec/PROTOCOL.md): JSON Lines in, one JSON line out per request
// line, in order, flushed after each line.
//
// The server owns the framing and the envelope: it reads lines of up to
// MaxLineBytes, answers a line that is not an FCP/1 request itself (with seq
// -1 when no seq can be read), answers hello from Handler.Hello, and returns
// after answering bye or at EOF. Everything else goes to Handler.Handle.
package fcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// MaxLineBytes is the longest request line the server reads (64 MiB). A
// longer line is discarded up to its newline and answered with seq -1.
const MaxLineBytes = 64 << 20

// Handler answers requests. Hello's seq is overwritten by the server;
// Handle is called for every op but hello, including unknown ones, and must
// answer each with a response (the server overwrites its seq too).
type Handler interface {
	Hello() fcp.Response
	Handle(context.Context, fcp.Request) fcp.Response
}

// HelloRequester is implemented by handlers whose hello depends on the
// request (test_tools, PROTOCOL.md §9.5); the server then calls HelloFor
// instead of Hello.
type HelloRequester interface {
	HelloFor(req fcp.Request) fcp.Response
}

// Serve reads requests from in and writes responses to out until EOF on in
// (returns nil), a bye request has been answered (returns nil), ctx is done
// (checked between lines; returns ctx.Err()), or reading or writing fails.
func Serve(ctx context.Context, in io.Reader, out io.Writer, h Handler) error {
	r := bufio.NewReaderSize(in, 64<<10)
	lw := &lineWriter{w: bufio.NewWriterSize(out, 64<<10)}
	lw.enc = json.NewEncoder(&lw.buf)
	lw.enc.SetEscapeHTML(false)
	turns := &turnManager{h: h, lw: lw}
	defer turns.stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, tooLong, err := readLine(r, MaxLineBytes)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("fcpserver: reading requests: %w", err)
		}
		eof := err != nil
		if len(bytes.TrimSpace(line)) == 0 && !tooLong {
			if eof {
				return turns.stop()
			}
			continue // blank lines carry no request and get no answer
		}
		var resp fcp.Response
		var bye bool
		switch {
		case tooLong:
			resp = failure(-1, "request line exceeds %d bytes; FCP/1 request lines are at most 64 MiB", MaxLineBytes)
		default:
			tr, handled := turns.route(ctx, line)
			switch {
			case !handled:
				resp, bye = dispatch(ctx, h, line)
			case tr == nil: // a turn started; it writes its own lines
				if eof {
					return turns.stop()
				}
				continue
			default:
				resp = *tr
			}
		}
		if err := lw.write(resp); err != nil {
			return err
		}
		if bye || eof {
			return turns.stop()
		}
	}
}

// lineWriter writes one JSON line at a time, flushed, from the request loop
// and from a running turn.
type lineWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

func (lw *lineWriter) write(v any) error {
	return lw.writeWith(func() any { return v })
}

// writeWith writes the line build returns, calling build under the
// writer's lock: what build observes and the order of the lines agree.
func (lw *lineWriter) writeWith(build func() any) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	v := build()
	lw.buf.Reset()
	seq := int64(-1)
	switch r := v.(type) {
	case fcp.Response:
		seq = r.Seq
	case fcp.TurnLine:
		seq = r.Seq
	}
	if err := lw.enc.Encode(v); err != nil { // Encode appends the newline
		lw.buf.Reset()
		failed := failure(seq, "implementation cannot encode its response: %v", err)
		failed.Error.Kind = string(toolerr.ExecutionFailed)
		if err := lw.enc.Encode(failed); err != nil {
			return fmt.Errorf("fcpserver: encoding the response to seq %d: %w", seq, err)
		}
	}
	if _, err := lw.w.Write(lw.buf.Bytes()); err != nil {
		return fmt.Errorf("fcpserver: writing the response to seq %d: %w", seq, err)
	}
	if err := lw.w.Flush(); err != nil {
		return fmt.Errorf("fcpserver: writing the response to seq %d: %w", seq, err)
	}
	return nil
}

// readLine returns the next line without its "\n". When the line is longer
// than max bytes, it is consumed up to its end and tooLong is set; at most
// max bytes are kept in memory. err is io.EOF at the end of input, with the
// final unterminated line (if any) in line.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		content := chunk
		if err == nil {
			content = chunk[:len(chunk)-1]
		}
		if !tooLong {
			if len(line)+len(content) > max {
				tooLong, line = true, nil
			} else {
				line = append(line, content...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// dispatch decodes one request line and answers it.
func dispatch(ctx context.Context, h Handler, line []byte) (resp fcp.Response, bye bool) {
	// The outer fcp and seq shadow the embedded ones, so absence is visible.
	var w struct {
		fcp.Request
		FCP *int   `json:"fcp"`
		Seq *int64 `json:"seq"`
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return failure(seqOf(line), "request is not a valid FCP/1 request: %s", describeDecodeError(err)), false
	}
	if w.Seq == nil {
		return failure(-1, `request has no "seq"; every FCP/1 request carries an integer seq`), false
	}
	req := w.Request
	req.Seq = *w.Seq
	switch {
	case w.FCP == nil:
		return failure(req.Seq, `request has no "fcp"; send "fcp":1`), false
	case *w.FCP != fcp.Version:
		return failure(req.Seq, "fcp version %d is not supported; this implementation speaks FCP/1 (send \"fcp\":1)", *w.FCP), false
	}
	req.FCP = fcp.Version
	defer func() {
		if p := recover(); p != nil {
			resp = failure(req.Seq, "implementation panicked handling op %q: %v", req.Op, p)
			resp.Error.Kind = string(toolerr.ExecutionFailed)
		}
		resp.Seq = req.Seq
	}()
	bye = req.Op == fcp.OpBye // even if Handle panics
	if req.Op == fcp.OpHello {
		if hr, ok := h.(HelloRequester); ok {
			return hr.HelloFor(req), false
		}
		return h.Hello(), false
	}
	return h.Handle(ctx, req), bye
}

// failure is a BadArgs error response: the kind FCP/1 uses for requests the
// implementation cannot read or does not support.
func failure(seq int64, format string, args ...any) fcp.Response {
	return fcp.Response{Seq: seq, OK: fcp.Bool(false), Error: &fcp.Error{
		Kind: string(toolerr.BadArgs), Message: fmt.Sprintf(format, args...)}}
}

// describeDecodeError says what is wrong with a request line in the
// protocol's terms rather than Go's.
func describeDecodeError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON at byte %d (%v); send one JSON object per line", se.Offset, se)
	case errors.As(err, &te):
		field := strings.TrimPrefix(strings.TrimPrefix(te.Field, "."), "Request.")
		if field == "" {
			return fmt.Sprintf("got a JSON %s, want an object", te.Value)
		}
		return fmt.Sprintf("member %q is a JSON %s, want %s", field, te.Value, jsonKind(te.Type))
	default:
		return err.Error()
	}
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "an integer"
	case reflect.Bool:
		return "a boolean"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return t.String()
	}
}

// seqOf recovers the seq of a line that is not a valid request, or -1.
func seqOf(line []byte) int64 {
	var s struct {
		Seq *int64 `json:"seq"`
	}
	if json.Unmarshal(line, &s) != nil || s.Seq == nil {
		return -1
	}
	return *s.Seq
}
