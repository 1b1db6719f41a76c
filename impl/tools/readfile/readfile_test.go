package readfile

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

func TestMetadata(t *testing.T) {
	var tl tool.Tool = Tool{}
	if tl.Name() != "read_file" || tl.Description() != "Read file contents" {
		t.Errorf("name/description %q/%q", tl.Name(), tl.Description())
	}
	if tl.SideEffecting() || tl.RequiresApproval() || tl.RiskLevel() != tool.Low {
		t.Errorf("side effecting %v, requires approval %v, risk %v", tl.SideEffecting(), tl.RequiresApproval(), tl.RiskLevel())
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{
		"path":{"type":"string"},"start_line":{"type":"integer","minimum":1},
		"end_line":{"type":"integer","minimum":1}},"required":["path"]}`
	var got, exp any
	if err := json.Unmarshal(tl.Schema(), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("schema %s", tl.Schema())
	}
	if _, err := tool.NewRegistry(Tool{}); err != nil {
		t.Errorf("schema does not register: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		tools string
		want  time.Duration
	}{
		{"", 30 * time.Second},
		{`{"timeouts":{"default_seconds":5}}`, 30 * time.Second},
		{`{"timeouts":{"file_operations_seconds":7}}`, 7 * time.Second},
		{`{"timeouts":{"file_operations_seconds":0.25}}`, 250 * time.Millisecond},
		{`{"timeouts":{"file_operations_seconds":0}}`, 30 * time.Second},
		{`{"timeouts":{"file_operations_seconds":-1}}`, 30 * time.Second},
		{`{"timeouts":{"file_operations_seconds":"10"}}`, 30 * time.Second},
	}
	for _, tc := range tests {
		if got := (Tool{}).Timeout(tooltest.Config(t, tc.tools)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.tools, got, tc.want)
		}
	}
}

func TestRanges(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("crlf", "l1\nl2\r\nl3\n"),
		tooltest.File("open", "a\nb"),
		tooltest.File("empty", ""),
		tooltest.File("blank", "\n\n\n"),
		tooltest.File("long", strings.Repeat("A", 100_000)+"\nB\n"+strings.Repeat("C", 70_000)),
	)
	tests := []struct{ args, want string }{
		{`{"path":"crlf"}`, "l1\nl2\r\nl3\n"},
		{`{"path":"crlf","start_line":2,"end_line":3}`, "l2\r\nl3\n"},
		{`{"path":"crlf","start_line":2,"end_line":2}`, "l2\r\n"},
		{`{"path":"crlf","start_line":2}`, "l2\r\nl3\n"},
		{`{"path":"crlf","end_line":2}`, "l1\nl2\r\n"},
		{`{"path":"crlf","start_line":2,"end_line":99}`, "l2\r\nl3\n"},
		{`{"path":"crlf","start_line":4}`, ""},
		{`{"path":"crlf","start_line":99,"end_line":100}`, ""},
		{`{"path":"crlf","start_line":null,"end_line":null}`, "l1\nl2\r\nl3\n"},
		{`{"path":"crlf","start_line":4294967295}`, ""},
		{`{"path":"open","start_line":2}`, "b"},
		{`{"path":"open","start_line":1,"end_line":1}`, "a\n"},
		{`{"path":"open","start_line":3}`, ""},
		{`{"path":"empty"}`, ""},
		{`{"path":"empty","start_line":1,"end_line":1}`, ""},
		{`{"path":"blank","start_line":2,"end_line":3}`, "\n\n"},
		{`{"path":"blank","start_line":4}`, ""},
		{`{"path":"long","start_line":2,"end_line":2}`, "B\n"},
		{`{"path":"long","start_line":3}`, strings.Repeat("C", 70_000)},
		{`{"path":"long","end_line":1}`, strings.Repeat("A", 100_000) + "\n"},
		{`{"path":"./crlf","start_line":1,"end_line":1}`, "l1\n"},
	}
	for _, tc := range tests {
		out, c, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: tc.args})
		if err != nil {
			t.Errorf("%s: %v", tc.args, err)
			continue
		}
		if out != tc.want {
			t.Errorf("%s: got %q, want %q", tc.args, trim(out), trim(tc.want))
		}
		if !c.AllowTruncation {
			t.Errorf("%s: text result disabled framework truncation", tc.args)
		}
	}
}

// trim shortens long strings in failure messages.
func trim(s string) string {
	if len(s) > 80 {
		return fmt.Sprintf("%s…(%d bytes)", s[:80], len(s))
	}
	return s
}

func TestValidation(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("f", "x\n"), tooltest.Dir("d"), tooltest.Dir(".ssh"),
		tooltest.File(".ssh/config", "Host *"), tooltest.File("key.pem", "k"),
		tooltest.Link("dangling", "missing"), tooltest.Link("loop", "loop"),
		tooltest.Link("out", "/etc/hostname"), tooltest.Fifo("pipe"),
	)
	tests := []struct {
		name, args, config string
		kind               toolerr.Kind
		words              []string
	}{
		{"not an object", `"f"`, "", toolerr.BadArgs, []string{"object"}},
		{"missing path", `{}`, "", toolerr.BadArgs, []string{"path"}},
		{"path not a string", `{"path":1}`, "", toolerr.BadArgs, []string{"path", "string"}},
		{"path null", `{"path":null}`, "", toolerr.BadArgs, []string{"path"}},
		{"case-sensitive keys", `{"Path":"f"}`, "", toolerr.BadArgs, []string{"path"}},
		{"start zero", `{"path":"f","start_line":0}`, "", toolerr.BadArgs, []string{"start_line"}},
		{"end zero", `{"path":"f","end_line":0}`, "", toolerr.BadArgs, []string{"end_line"}},
		{"negative", `{"path":"f","start_line":-1}`, "", toolerr.BadArgs, []string{"start_line"}},
		{"fraction", `{"path":"f","start_line":1.5}`, "", toolerr.BadArgs, []string{"start_line"}},
		{"1.0 is not a u32", `{"path":"f","end_line":1.0}`, "", toolerr.BadArgs, []string{"end_line"}},
		{"beyond u32", `{"path":"f","end_line":4294967296}`, "", toolerr.BadArgs, []string{"end_line"}},
		{"string number", `{"path":"f","start_line":"2"}`, "", toolerr.BadArgs, []string{"start_line"}},
		{"start after end", `{"path":"f","start_line":3,"end_line":2}`, "", toolerr.BadArgs, []string{"start_line", "end_line"}},
		{"args before sandbox", `{"path":"../f","start_line":3,"end_line":2}`, "", toolerr.BadArgs, []string{"start_line"}},
		{"dotdot", `{"path":"../f"}`, "", toolerr.SandboxViolation, nil},
		{"absolute", `{"path":"/etc/hostname"}`, "", toolerr.SandboxViolation, nil},
		{"symlink out", `{"path":"out"}`, "", toolerr.SandboxViolation, nil},
		{"denied dir", `{"path":".ssh/config"}`, "", toolerr.SandboxViolation, []string{".ssh"}},
		{"denied pem", `{"path":"key.pem"}`, "", toolerr.SandboxViolation, []string{"pem"}},
		{"sandbox before existence", `{"path":"../nope"}`, "", toolerr.SandboxViolation, nil},
		{"missing", `{"path":"nope"}`, "", toolerr.ExecutionFailed, []string{"file not found: nope"}},
		{"below a file", `{"path":"f/x"}`, "", toolerr.ExecutionFailed, []string{"file not found: f/x"}},
		{"dangling symlink", `{"path":"dangling"}`, "", toolerr.ExecutionFailed, []string{"file not found"}},
		{"symlink loop", `{"path":"loop"}`, "", toolerr.ExecutionFailed, []string{"file not found"}},
		{"directory", `{"path":"d"}`, "", toolerr.ExecutionFailed, []string{"is a directory"}},
		{"working directory", `{"path":"."}`, "", toolerr.ExecutionFailed, []string{"is a directory"}},
		{"fifo", `{"path":"pipe"}`, "", toolerr.ExecutionFailed, []string{"not a regular file"}},
		{"bad config", `{"path":"f"}`, `{"read_file":{"max_scan_bytes":"big"}}`, toolerr.ExecutionFailed, []string{"configuration"}},
		{"zero config", `{"path":"f"}`, `{"read_file":{"max_file_read_bytes":0}}`, toolerr.ExecutionFailed, []string{"max_file_read_bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := session.New()
			_, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: tc.args, Config: tc.config, Session: s})
			tooltest.ErrorKind(t, err, tc.kind, tc.words...)
			if _, ok := s.LastRead(filepath.Join(root, "f")); ok {
				t.Errorf("a failed read was recorded")
			}
		})
	}
}

func TestSymlinkInsideIsRead(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.Dir("d"), tooltest.File("d/f", "hello"), tooltest.Link("l", "d/f"),
		tooltest.Link("d/up", "../l"),
	)
	for _, p := range []string{"l", "d/up"} {
		s := session.New()
		out, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"` + p + `"}`, Session: s})
		if err != nil || out != "hello" {
			t.Errorf("%s: %q, %v", p, out, err)
		}
		if _, ok := s.LastRead(filepath.Join(root, "d", "f")); !ok {
			t.Errorf("%s: the canonical path was not recorded", p)
		}
	}
}

func TestTooLarge(t *testing.T) {
	body := strings.Repeat("0123456789\n", 30) // 330 bytes
	root := tooltest.Build(t, tooltest.File("f", body))
	limit := func(n int) string { return fmt.Sprintf(`{"read_file":{"max_file_read_bytes":%d}}`, n) }

	out, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Config: limit(330)})
	if err != nil || out != body {
		t.Errorf("exactly at the limit: %q, %v", trim(out), err)
	}
	_, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Config: limit(329)})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "start_line", "end_line", "330")
	// read_limit also honours the available capacity.
	_, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Capacity: 329})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "start_line", "end_line")
	out, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Capacity: 330})
	if err != nil || out != body {
		t.Errorf("capacity at the size: %q, %v", trim(out), err)
	}
	// A range is not bound by read_limit.
	out, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f","start_line":30}`, Config: limit(10)})
	if err != nil || out != "0123456789\n" {
		t.Errorf("ranged read of a large file: %q, %v", out, err)
	}
	// Nor is the output limit checked for text: the framework truncates.
	out, c, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Budget: 10})
	if err != nil || out != body || !c.AllowTruncation {
		t.Errorf("text over the output budget: %q, %v, allow_truncation %v", trim(out), err, c.AllowTruncation)
	}
}

func TestScanBound(t *testing.T) {
	body := strings.Repeat("123456789\n", 10) // 100 bytes, line k ends at byte 10k
	root := tooltest.Build(t, tooltest.File("f", body), tooltest.File("g", body[:95]))
	tests := []struct {
		args    string
		maxScan int
		want    string // "" with ok=false: a narrow error
		ok      bool
	}{
		{`{"path":"f","start_line":1,"end_line":3}`, 30, body[:30], true},
		{`{"path":"f","start_line":1,"end_line":3}`, 29, "", false},
		{`{"path":"f","start_line":3,"end_line":3}`, 30, body[20:30], true},
		{`{"path":"f","end_line":4}`, 39, "", false},
		{`{"path":"f","start_line":10}`, 100, body[90:], true},
		{`{"path":"f","start_line":10}`, 99, "", false},
		{`{"path":"f","start_line":5,"end_line":50}`, 100, body[40:], true},
		{`{"path":"f","start_line":5,"end_line":50}`, 99, "", false},
		{`{"path":"f","start_line":11}`, 100, "", true},
		{`{"path":"f","start_line":11}`, 99, "", false},
		{`{"path":"g","start_line":10}`, 95, body[90:95], true},
		{`{"path":"g","start_line":10}`, 94, "", false},
		{`{"path":"f","end_line":1}`, 10, body[:10], true},
		{`{"path":"f","end_line":1}`, 9, "", false},
	}
	for _, tc := range tests {
		cfg := fmt.Sprintf(`{"read_file":{"max_scan_bytes":%d}}`, tc.maxScan)
		s := session.New()
		out, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: tc.args, Config: cfg, Session: s})
		if !tc.ok {
			tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "narrow")
			continue
		}
		if err != nil || out != tc.want {
			t.Errorf("%s max_scan %d: %q, %v; want %q", tc.args, tc.maxScan, out, err, tc.want)
		}
	}
	// The bound applies to ranged reads only.
	out, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Config: `{"read_file":{"max_scan_bytes":1}}`})
	if err != nil || out != body {
		t.Errorf("whole read with a tiny scan bound: %q, %v", out, err)
	}
}

// binOut is the expected binary rendering of data.
func binOut(data []byte, truncated bool) string {
	h := "[binary:base64]"
	if truncated {
		h += " [truncated]"
	}
	return h + "\n" + base64.StdEncoding.EncodeToString(data)
}

func TestBinaryDetection(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	euro := "\u20ac" // E2 82 AC
	tests := []struct {
		name, data string
		binary     bool
	}{
		{"nul", "abc\x00def", true},
		{"nul at the end of the window", a(8191) + "\x00" + a(10), true},
		{"nul after the window", a(8192) + "\x00", false},
		{"invalid byte", "caf\xe9", true},
		{"overlong", "\xc0\xaf", true},
		{"surrogate", "\xed\xa0\x80", true},
		{"valid multibyte", "Grüße " + euro + " 😀", false},
		{"cut at 8192 of a longer file (1 of 3)", a(8191) + euro + "tail", false},
		{"cut at 8192 of a longer file (2 of 3)", a(8190) + euro + "tail", false},
		{"cut at 8192 of a longer file (3 of 4)", a(8189) + "😀" + "tail", false},
		{"truncated char at the end of the file", a(8190) + euro[:2], true},
		{"truncated char in a short file", "abc" + euro[:2], true},
		{"invalid prefix at the window end", a(8190) + "\xe0\x80" + "\x80tail", true},
		{"stray continuation at the window end", a(8191) + "\x80" + "tail", true},
		{"invalid after the window", a(8192) + "\xff", false},
	}
	var nodes []tooltest.Node
	for i, tc := range tests {
		nodes = append(nodes, tooltest.File(fmt.Sprint(i), tc.data))
	}
	root := tooltest.Build(t, nodes...)
	for i, tc := range tests {
		out, c, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: fmt.Sprintf(`{"path":"%d"}`, i)})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		want := tc.data
		if tc.binary {
			want = binOut([]byte(tc.data), false)
		} else if !utf8.ValidString(tc.data) {
			want = strings.ToValidUTF8(tc.data, "\uFFFD") // one bad byte: same as from_utf8_lossy
		}
		if out != want {
			t.Errorf("%s: got %q, want %q", tc.name, trim(out), trim(want))
		}
		if c.AllowTruncation == tc.binary {
			t.Errorf("%s: allow_truncation %v", tc.name, c.AllowTruncation)
		}
		_, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: fmt.Sprintf(`{"path":"%d","start_line":1}`, i)})
		if tc.binary {
			tooltest.ErrorKind(t, err, toolerr.BadArgs, "binary")
		} else if err != nil {
			t.Errorf("%s: ranged read: %v", tc.name, err)
		}
	}
}

func TestBinaryBudget(t *testing.T) {
	data := make([]byte, 300)
	for i := range data {
		data[i] = byte(i * 7)
	}
	root := tooltest.Build(t, tooltest.File("bin", string(data)), tooltest.File("ten", "\x00123456789"))
	// Full output of ten bytes: 16 + 4*ceil(10/3) = 32 bytes; of 300 bytes:
	// 16 + 400 = 416 bytes. One byte under, the truncated header (28 bytes
	// with the newline) leaves room for floor((budget-28)/4)*3 bytes.
	ten := []byte("\x00123456789")
	tests := []struct {
		path   string
		budget int64
		want   string
	}{
		{"ten", 32, binOut(ten, false)},
		{"ten", 33, binOut(ten, false)},
		{"ten", 31, binOut(nil, true)},
		{"ten", 28, binOut(nil, true)},
		{"bin", 416, binOut(data, false)},
		{"bin", 415, binOut(data[:288], true)},
		{"bin", 32, binOut(data[:3], true)},
		{"bin", 31, binOut(nil, true)},
	}
	for _, tc := range tests {
		out, c, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"` + tc.path + `"}`, Budget: tc.budget})
		if err != nil || out != tc.want {
			t.Errorf("%s budget %d: %q, %v; want %q", tc.path, tc.budget, trim(out), err, trim(tc.want))
		}
		if c.AllowTruncation {
			t.Errorf("budget %d: allow_truncation is true", tc.budget)
		}
	}
	for _, budget := range []int64{27, 16, 1} {
		_, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"ten"}`, Budget: budget})
		tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "output budget too small")
	}

	// Every budget: the output fits, is a prefix, and is the longest one.
	full := 16 + 4*((len(data)+2)/3)
	for budget := int64(28); budget <= int64(full)+4; budget++ {
		for _, viaCapacity := range []bool{false, true} {
			c := tooltest.Call{Args: `{"path":"bin"}`, Budget: budget}
			if viaCapacity {
				c = tooltest.Call{Args: `{"path":"bin"}`, Budget: 1 << 20, Capacity: budget}
			}
			out, _, err := tooltest.Run(t, Tool{}, root, c)
			if err != nil {
				t.Fatalf("budget %d: %v", budget, err)
			}
			if int64(len(out)) > budget {
				t.Fatalf("budget %d: %d bytes", budget, len(out))
			}
			header, b64, _ := strings.Cut(out, "\n")
			got, err := base64.StdEncoding.DecodeString(b64)
			if err != nil || string(got) != string(data[:len(got)]) {
				t.Fatalf("budget %d: body is not a prefix: %v", budget, err)
			}
			truncated := header == "[binary:base64] [truncated]"
			if truncated == (len(got) == len(data)) || (!truncated && header != "[binary:base64]") {
				t.Fatalf("budget %d: header %q with %d of %d bytes", budget, header, len(got), len(data))
			}
			if n := len(got) + 1; truncated && n < len(data) && int64(28+4*((n+2)/3)) <= budget {
				t.Fatalf("budget %d: %d bytes kept, %d would fit", budget, len(got), n)
			}
		}
	}
	// Binary files are not bound by read_limit.
	out, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"bin"}`, Config: `{"read_file":{"max_file_read_bytes":1}}`})
	if err != nil || out != binOut(data, false) {
		t.Errorf("binary under a 1-byte read limit: %q, %v", trim(out), err)
	}
}

func TestReadCache(t *testing.T) {
	text := strings.Repeat("line\n", 1000) + strings.Repeat("x", 200_000) // larger than one buffer
	bin := "\x00" + strings.Repeat("y", 300_000)
	root := tooltest.Build(t,
		tooltest.File("t", text), tooltest.File("b", bin), tooltest.Dir("d"), tooltest.File("d/f", "new"),
	)
	tests := []struct {
		args, path, content string
		budget              int64
	}{
		{`{"path":"t","start_line":2,"end_line":3}`, "t", text, 0},
		{`{"path":"t","start_line":1001}`, "t", text, 0},
		{`{"path":"./d/f"}`, "d/f", "new", 0},
		{`{"path":"b"}`, "b", bin, 100},
		{`{"path":"b"}`, "b", bin, 0},
	}
	for _, tc := range tests {
		s := session.New()
		before := time.Now()
		if _, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: tc.args, Session: s, Budget: tc.budget}); err != nil {
			t.Errorf("%s: %v", tc.args, err)
			continue
		}
		canon := filepath.Join(root, filepath.FromSlash(tc.path))
		r, ok := s.LastRead(canon)
		if !ok {
			t.Errorf("%s: nothing recorded for %s", tc.args, canon)
			continue
		}
		if r.Path != canon || r.SHA256 != sha256.Sum256([]byte(tc.content)) || r.At.Before(before) || r.At.After(time.Now()) {
			t.Errorf("%s: recorded %s %x at %v", tc.args, r.Path, r.SHA256, r.At)
		}
	}
	// A later read replaces the entry; a read without a session is fine.
	s := session.New()
	if _, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"d/f"}`, Session: s}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d", "f"), []byte("newer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"d/f","end_line":1}`, Session: s}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.LastRead(filepath.Join(root, "d", "f")); r.SHA256 != sha256.Sum256([]byte("newer")) {
		t.Errorf("the second read did not replace the entry")
	}
	if _, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"d/f"}`}); err != nil {
		t.Errorf("no session: %v", err)
	}
}

// TestSymlinkSwap simulates a symlink swapped in after sandbox validation:
// the canonical path handed to the open is now a symlink, which must not be
// followed.
func TestSymlinkSwap(t *testing.T) {
	outside := tooltest.Build(t, tooltest.File("secret", "s3cret"))
	root := tooltest.Build(t, tooltest.File("f", "ok"), tooltest.Dir("d"), tooltest.Fifo("p"))
	sb := tooltest.Sandbox(t, root)
	canon, err := sb.Validate("f")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(canon); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), canon); err != nil {
		t.Fatal(err)
	}
	afs := afero.NewOsFs()
	if f, _, err := openRegular(afs, canon); err == nil {
		f.Close()
		t.Fatal("opened a symlink swapped in after validation")
	} else if !errors.Is(err, syscall.ELOOP) {
		t.Errorf("error %v, want ELOOP", err)
	}
	r := &reader{args: args{Path: "f"}}
	tooltest.ErrorKind(t, r.openError(syscall.ELOOP), toolerr.ExecutionFailed, "symlink")

	for _, name := range []string{"d", "p"} {
		done := make(chan error, 1)
		go func() {
			f, _, err := openRegular(afs, filepath.Join(root, name))
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: opened a non-regular file", name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: open blocked", name)
		}
	}
}

func TestPermissionsAndFaults(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("f", "data"), tooltest.File("closed", "x"))
	canon := filepath.Join(root, "f")
	fault := func(op string, errno syscall.Errno) []fsys.Fault {
		return []fsys.Fault{{Op: op, Path: canon, Err: errno}}
	}
	_, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Faults: fault(fsys.OpOpen, syscall.EACCES)})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "permission denied")
	_, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Faults: fault(fsys.OpOpen, syscall.EIO)})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "cannot open f", "input/output error")
	_, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Faults: fault(fsys.OpStat, syscall.EIO)})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "cannot access f")

	tooltest.OpenToOthers(t, root, 0o755)
	if err := os.Chmod(filepath.Join(root, "closed"), 0o000); err != nil {
		t.Fatal(err)
	}
	_, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"closed"}`, Perm: true})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "permission denied")
	out, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Perm: true})
	if err != nil || out != "data" {
		t.Errorf("readable file through PermFs: %q, %v", out, err)
	}
}

func TestApprovalSummary(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := []struct {
		args, want string
		kind       toolerr.Kind
	}{
		{args: `{"path":"src/main.rs"}`, want: "Read src/main.rs"},
		{args: `{"path":"a","start_line":3,"end_line":9}`, want: "Read a lines 3-9"},
		{args: `{"path":"a","start_line":3}`, want: "Read a lines 3-"},
		{args: `{"path":"a","end_line":9}`, want: "Read a lines 1-9"},
		{args: `{"path":"a","start_line":null}`, want: "Read a"},
		{args: `{"path":"/nonexistent/../x"}`, want: "Read /nonexistent/../x"},
		{args: `{"path":"logs/token=abc123.txt"}`, want: "Read logs/token=[REDACTED]"},
		{args: `{"path":"` + strings.Repeat("a", 195) + `"}`, want: "Read " + strings.Repeat("a", 195)},
		{args: `{"path":"` + strings.Repeat("a", 196) + `"}`, want: "Read " + strings.Repeat("a", 194) + "…"},
		{args: `{"path":"` + long + `"}`, want: "Read " + strings.Repeat("é", 194) + "…"},
		{args: `{"path":"a","start_line":5,"end_line":4}`, kind: toolerr.BadArgs},
		{args: `{}`, kind: toolerr.BadArgs},
	}
	for _, tc := range tests {
		got, err := Tool{}.ApprovalSummary(json.RawMessage(tc.args), tooltest.Config(t, ""))
		if tc.kind != "" {
			tooltest.ErrorKind(t, err, tc.kind)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.args, got, err, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > tool.MaxSummaryChars {
			t.Errorf("%s: summary has %d characters", tc.args, n)
		}
	}
}

func TestCancelled(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("f", "x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := session.New()
	_, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Context: ctx, Session: s})
	tooltest.ErrorKind(t, err, toolerr.Cancelled)
	if _, ok := s.LastRead(filepath.Join(root, "f")); ok {
		t.Errorf("a cancelled read was recorded")
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, _, err = tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"f"}`, Context: ctx})
	tooltest.ErrorKind(t, err, toolerr.Timeout)

	c := &tool.Ctx{FS: afero.NewOsFs(), WorkingDir: root, MaxOutputBytes: 1 << 20, AvailableCapacityBytes: 1 << 20}
	_, err = Tool{}.Execute(context.Background(), json.RawMessage(`{"path":"f"}`), c)
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "sandbox")
}

func TestIncompletePrefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"\xe2", true}, {"\xe2\x82", true}, {"\xf0", true}, {"\xf0\x9f", true}, {"\xf0\x9f\x98", true},
		{"\xe0\xa0", true}, {"\xed\x9f", true}, {"\xf4\x8f", true},
		{"\xe0\x80", false}, {"\xed\xa0", false}, {"\xf0\x80", false}, {"\xf4\x90", false},
		{"\xc0", false}, {"\xc1", false}, {"\xf5", false}, {"\xff", false}, {"\x80", false},
		{"a", false}, {"\xe2\x82\xac", false}, {"", false},
	} {
		if got := incompletePrefix([]byte(tc.in)); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestRangedReadStreams checks that a ranged read of a large file keeps
// memory bounded (it streams the rest through the hash) while still hashing
// the whole file.
func TestRangedReadStreams(t *testing.T) {
	const size = 32 << 20
	big := strings.Repeat(strings.Repeat("z", 1023)+"\n", size/1024)
	root := tooltest.Build(t, tooltest.File("big", big))
	want := sha256.Sum256([]byte(big))
	big = ""
	s := session.New()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, _, err := tooltest.Run(t, Tool{}, root, tooltest.Call{Args: `{"path":"big","start_line":2,"end_line":2}`, Session: s})
	runtime.ReadMemStats(&after)
	if err != nil || len(out) != 1024 {
		t.Fatalf("%d bytes, %v", len(out), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("a ranged read of %d bytes allocated %d bytes", size, alloc)
	}
	if r, _ := s.LastRead(filepath.Join(root, "big")); r.SHA256 != want {
		t.Errorf("the recorded hash is not the whole file's")
	}
}
