package fcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// echoHandler answers call with the call's args as content, panics on op
// "panic", and records the requests it saw.
type echoHandler struct{ seen []fcp.Request }

func (h *echoHandler) Hello() fcp.Response {
	return fcp.Response{Seq: 99, FCP: 1, Implementation: &fcp.Implementation{Name: "echo", Version: "1", Language: "go"},
		Tools: []string{"echo"}, Ops: []string{"hello", "call", "bye"}}
}

func (h *echoHandler) Handle(_ context.Context, req fcp.Request) fcp.Response {
	h.seen = append(h.seen, req)
	switch req.Op {
	case fcp.OpCall:
		s := string(req.Call.Args)
		return fcp.Response{Seq: 12345, OK: fcp.Bool(true), Content: &s, AllowTruncation: fcp.Bool(true)}
	case fcp.OpBye:
		return fcp.Response{OK: fcp.Bool(true)}
	case "panic":
		panic("kaboom")
	case "badjson":
		return fcp.Response{OK: fcp.Bool(true), Definitions: []fcp.Definition{{Name: "x", Parameters: json.RawMessage(`{`)}}}
	}
	return fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "BadArgs", Message: "unknown op " + req.Op}}
}

func serve(t *testing.T, input string) (lines []string, h *echoHandler) {
	t.Helper()
	h = &echoHandler{}
	var out bytes.Buffer
	if err := Serve(context.Background(), strings.NewReader(input), &out, h); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		t.Errorf("output does not end in a newline: %q", out.String())
	}
	text := strings.TrimSuffix(out.String(), "\n")
	if text == "" {
		return nil, h
	}
	return strings.Split(text, "\n"), h
}

func TestServe(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"eof without requests", "", nil},
		{"blank lines get no answer", "\n  \n\r\n", nil},
		{"hello gets the request's seq",
			`{"fcp":1,"seq":0,"op":"hello"}` + "\n",
			[]string{`{"seq":0,"fcp":1,"implementation":{"name":"echo","version":"1","language":"go"},"tools":["echo"],"ops":["hello","call","bye"]}`}},
		{"call, no html escaping, crlf, final line without newline",
			`{"fcp":1,"seq":3,"op":"call","call":{"id":"1","name":"echo","args":{"a":"<&>"}},"ctx":{"working_dir":"/"}}` + "\r\n" +
				`{"fcp":1,"seq":4,"op":"nope"}`,
			[]string{`{"seq":3,"ok":true,"content":"{\"a\":\"<&>\"}","allow_truncation":true}`,
				`{"seq":4,"ok":false,"error":{"kind":"BadArgs","message":"unknown op nope"}}`}},
		{"bye is answered and ends the session",
			`{"fcp":1,"seq":5,"op":"bye"}` + "\n" + `{"fcp":1,"seq":6,"op":"hello"}` + "\n",
			[]string{`{"seq":5,"ok":true}`}},
		{"not JSON gets seq -1 and the session goes on",
			"hello\n" + `{"fcp":1,"seq":7,"op":"x"}` + "\n",
			[]string{`{"seq":-1,"ok":false,"error":{"kind":"BadArgs","message":"request is not a valid FCP/1 request: not valid JSON at byte 1 (invalid character 'h' looking for beginning of value); send one JSON object per line"}}`,
				`{"seq":7,"ok":false,"error":{"kind":"BadArgs","message":"unknown op x"}}`}},
		{"bad types keep a readable seq",
			`{"fcp":1,"seq":8,"op":3}` + "\n" + `{"fcp":1,"seq":"9","op":"call"}` + "\n" + `[1]` + "\n",
			[]string{`{"seq":8,"ok":false,"error":{"kind":"BadArgs","message":"request is not a valid FCP/1 request: member \"op\" is a JSON number, want a string"}}`,
				`{"seq":-1,"ok":false,"error":{"kind":"BadArgs","message":"request is not a valid FCP/1 request: member \"seq\" is a JSON string, want an integer"}}`,
				`{"seq":-1,"ok":false,"error":{"kind":"BadArgs","message":"request is not a valid FCP/1 request: got a JSON array, want an object"}}`}},
		{"missing seq, missing fcp, other version",
			`{"fcp":1,"op":"hello"}` + "\n" + `{"seq":10,"op":"hello"}` + "\n" + `{"fcp":2,"seq":11,"op":"hello"}` + "\n",
			[]string{`{"seq":-1,"ok":false,"error":{"kind":"BadArgs","message":"request has no \"seq\"; every FCP/1 request carries an integer seq"}}`,
				`{"seq":10,"ok":false,"error":{"kind":"BadArgs","message":"request has no \"fcp\"; send \"fcp\":1"}}`,
				`{"seq":11,"ok":false,"error":{"kind":"BadArgs","message":"fcp version 2 is not supported; this implementation speaks FCP/1 (send \"fcp\":1)"}}`}},
		{"an unencodable response becomes ExecutionFailed",
			`{"fcp":1,"seq":14,"op":"badjson"}` + "\n",
			[]string{`{"seq":14,"ok":false,"error":{"kind":"ExecutionFailed","message":"implementation cannot encode its response: json: error calling MarshalJSON for type json.RawMessage: unexpected end of JSON input"}}`}},
		{"a panicking handler answers ExecutionFailed",
			`{"fcp":1,"seq":12,"op":"panic"}` + "\n" + `{"fcp":1,"seq":13,"op":"bye"}` + "\n",
			[]string{`{"seq":12,"ok":false,"error":{"kind":"ExecutionFailed","message":"implementation panicked handling op \"panic\": kaboom"}}`,
				`{"seq":13,"ok":true}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := serve(t, tt.input)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestServeResponsesAreSchemaValid(t *testing.T) {
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := serve(t, "garbage\n"+`{"fcp":2,"seq":1,"op":"call"}`+"\n"+`{"fcp":1,"seq":2,"op":"hello"}`+"\n")
	ops := []string{"call", "call", "hello"}
	for i, line := range got {
		if err := v.ValidateResponse(ops[i], []byte(line)); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
	}
}

func TestServePassesRequest(t *testing.T) {
	_, h := serve(t, `{"fcp":1,"seq":3,"op":"call","case":"c/1","call":{"id":"i","name":"n","args":{"x":1}},"ctx":{"working_dir":"/w","max_output_bytes":5},"config":{"tools":{}}}`+"\n")
	if len(h.seen) != 1 {
		t.Fatalf("handler saw %d requests", len(h.seen))
	}
	r := h.seen[0]
	if r.FCP != 1 || r.Seq != 3 || r.Case != "c/1" || r.Call.ID != "i" || string(r.Call.Args) != `{"x":1}` ||
		r.Ctx.WorkingDir != "/w" || *r.Ctx.MaxOutputBytes != 5 || string(r.Config) != `{"tools":{}}` {
		t.Errorf("request = %+v", r)
	}
}

// TestServeFlushesEachLine talks to Serve over pipes, one line at a time:
// it would deadlock if a response were buffered.
func TestServeFlushesEachLine(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), inR, outW, &echoHandler{}); outW.Close() }()
	rd := bufio.NewReader(outR)
	for seq := range 3 {
		req, _ := json.Marshal(fcp.Request{FCP: 1, Seq: int64(seq), Op: "hello"})
		if _, err := inW.Write(append(req, '\n')); err != nil {
			t.Fatal(err)
		}
		line, err := readWithTimeout(rd)
		if err != nil {
			t.Fatalf("seq %d: %v", seq, err)
		}
		var resp fcp.Response
		if err := json.Unmarshal(line, &resp); err != nil || resp.Seq != int64(seq) {
			t.Fatalf("seq %d: got %s (%v)", seq, line, err)
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve at EOF = %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return at EOF")
	}
}

func readWithTimeout(rd *bufio.Reader) ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() { b, err := rd.ReadBytes('\n'); ch <- res{b, err} }()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-time.After(5 * time.Second):
		return nil, errors.New("no response line within 5s: not flushed?")
	}
}

func TestServeContextAndWriteErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Serve(ctx, strings.NewReader(`{"fcp":1,"seq":0,"op":"hello"}`+"\n"), io.Discard, &echoHandler{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	err := Serve(context.Background(), strings.NewReader(`{"fcp":1,"seq":0,"op":"hello"}`+"\n"), failWriter{}, &echoHandler{})
	if err == nil || !strings.Contains(err.Error(), "seq 0") {
		t.Errorf("write error: got %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestReadLine(t *testing.T) {
	const max = 8
	input := "12345678\n123456789\nab\n" + strings.Repeat("x", 100) + "\nlast"
	r := bufio.NewReaderSize(strings.NewReader(input), 16)
	want := []struct {
		line    string
		tooLong bool
		eof     bool
	}{
		{"12345678", false, false},
		{"", true, false},
		{"ab", false, false},
		{"", true, false},
		{"last", false, true},
	}
	for i, w := range want {
		line, tooLong, err := readLine(r, max)
		if string(line) != w.line || tooLong != w.tooLong || (err == io.EOF) != w.eof || (err != nil && err != io.EOF) {
			t.Errorf("line %d: got %q tooLong=%v err=%v, want %+v", i, line, tooLong, err, w)
		}
	}
}

// TestServeLongLine checks the 64 MiB limit end to end: the long line is
// answered with seq -1 and the next line is still served.
func TestServeLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 64 MiB")
	}
	long := `{"fcp":1,"seq":1,"op":"hello","case":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	got, _ := serve(t, long+"\n"+`{"fcp":1,"seq":2,"op":"x"}`+"\n")
	if len(got) != 2 || !strings.HasPrefix(got[0], `{"seq":-1,"ok":false`) || !strings.Contains(got[0], "exceeds") ||
		!strings.HasPrefix(got[1], `{"seq":2,`) {
		t.Errorf("got %q", got)
	}
}
