package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/lp1"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Name is the emulation's name in hello (not the reference's, so goldens
// are notes where the SRD leaves the bytes open).
const Name = "forgelike (test-only emulation of Forge, per FORGE_FACTS.md)"

// handler wraps the reference (policy refuse) with Forge's behaviour.
type handler struct {
	ref *reference.Reference
}

func newHandler() (*handler, error) {
	ref, err := reference.New(reference.Options{Policies: map[string]string{fcp.PolicyLP1MissingFile: fcp.PolicyRefuse}})
	if err != nil {
		return nil, err
	}
	return &handler{ref: ref}, nil
}

// Hello declares the reference's tools and only the ops this emulation
// serves: the executor table of FORGE_FACTS.md (the turn, recover and
// screen ops) is not emulated, so the turn cases are skipped for it.
func (h *handler) Hello() fcp.Response {
	r := h.ref.Hello()
	r.Implementation = &fcp.Implementation{Name: Name, Version: reference.Version, Language: "go"}
	r.Ops = slices.DeleteFunc(slices.Clone(r.Ops), func(op string) bool {
		return slices.Contains(fcp.TurnOps(), op) || op == fcp.OpRecover || op == fcp.OpScreen
	})
	return r
}

func (h *handler) Handle(ctx context.Context, req fcp.Request) fcp.Response {
	if req.Op != fcp.OpCall || req.Call == nil || req.Ctx == nil {
		return h.ref.Handle(ctx, req)
	}
	var args map[string]any
	_ = json.Unmarshal(req.Call.Args, &args)
	var resp fcp.Response
	switch req.Call.Name {
	case "apply_patch":
		resp = h.applyPatch(ctx, req, args)
	case "write_file":
		resp = h.writeFile(ctx, req, args)
	case "read_file":
		resp = h.readFile(ctx, req, args)
	default:
		return h.ref.Handle(ctx, req)
	}
	return sandboxFields(req, args, resp)
}

// badPath is Forge's check for control and bidi characters in a path.
func badPath(args map[string]any) *fcp.Response {
	p, _ := args["path"].(string)
	for _, r := range p {
		if unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) {
			resp := fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "BadArgs", Message: "path contains invalid control characters"}}
			return &resp
		}
	}
	return nil
}

// sandboxFields words a denial as Forge does: attempted is the canonical
// absolute path (DeniedPatternMatched) or the working dir joined with the
// request (PathOutsideSandbox).
func sandboxFields(req fcp.Request, args map[string]any, resp fcp.Response) fcp.Response {
	if resp.Error == nil || resp.Error.Denial == nil {
		return resp
	}
	e := *resp.Error
	d := *e.Denial
	switch d.Reason {
	case "DeniedPatternMatched":
		if d.Resolved != "" {
			d.Attempted = d.Resolved
		} else if p, ok := args["path"].(string); ok {
			d.Attempted = canonical(join(req.Ctx.WorkingDir, p))
		}
	case "PathOutsideSandbox":
		if d.Attempted != "" && !filepath.IsAbs(d.Attempted) {
			d.Attempted = join(req.Ctx.WorkingDir, d.Attempted)
		}
	}
	e.Denial = &d
	resp.Error = &e
	return resp
}

func join(wd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(wd, p)
}

// canonical resolves symlinks of p's directory (p itself may not exist).
func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

func withArgs(req fcp.Request, args map[string]any) fcp.Request {
	raw, _ := json.Marshal(args)
	c := *req.Call
	c.Args = raw
	req.Call = &c
	return req
}

// ---- apply_patch ----

var (
	lineRef   = regexp.MustCompile(`^line (\d+): `)
	lineRefs  = regexp.MustCompile(`(?:file )?line \d+: `)
	forgeWord = []struct {
		re   *regexp.Regexp
		word string
	}{
		{regexp.MustCompile(`is not in the file|matches only \d+ time`), "Match not found"},
		{regexp.MustCompile(`is ambiguous`), "Match is not unique"},
		{regexp.MustCompile(`without the "END" footer|ends after the header`), "Missing END footer"},
		{regexp.MustCompile(`expected the header|empty patch`), "Invalid LP1 header"},
		{regexp.MustCompile(`(?i)bare CR`), "Bare CR in file"},
		{regexp.MustCompile(`(?i)mixed`), "Mixed EOL detected"},
		{regexp.MustCompile(`unknown statement|unknown operation`), "Unknown LP1 operation"},
		{regexp.MustCompile(`match block is empty`), "Empty match requires occurrence"},
	}
)

func (h *handler) applyPatch(ctx context.Context, req fcp.Request, args map[string]any) fcp.Response {
	patch, ok := args["patch"].(string)
	if !ok {
		return h.ref.Handle(ctx, req)
	}
	if kept, ok := keepFinalNewline(patch, req.Ctx.WorkingDir); ok {
		patch = kept
		args["patch"] = patch
		req = withArgs(req, args)
	}
	resp := h.ref.Handle(ctx, req)
	for i := 0; i < 16 && resp.Error != nil && resp.Error.Kind == "PatchFailed"; i++ {
		next, changed := forgeAccepts(patch, resp.Error.Message)
		if !changed {
			break
		}
		patch = next
		args["patch"] = patch
		resp = h.ref.Handle(ctx, withArgs(req, args))
	}
	if resp.Error != nil && resp.Error.Kind == "PatchFailed" {
		e := *resp.Error
		e.Message = forgeMessage(e.Message)
		if e.File == "" {
			e.File = "<patch>"
		}
		resp.Error = &e
	}
	return resp
}

// forgeAccepts rewrites the patch the way Forge's parser reads it, for
// the reference error msg: the section without operations is dropped, an
// E with an occurrence and an empty match block is dropped (it erases
// nothing), text after END is ignored, blank and comment lines before LP1
// are skipped.
func forgeAccepts(patch, msg string) (string, bool) {
	m := lineRef.FindStringSubmatch(msg)
	if m == nil {
		return patch, false
	}
	n, _ := strconv.Atoi(m[1])
	lines := strings.Split(patch, "\n")
	if n < 1 || n > len(lines) {
		return patch, false
	}
	cmd := strings.TrimRight(lines[n-1], "\r")
	switch {
	case strings.Contains(msg, "has no operations"):
		return strings.Join(append(lines[:n-1:n-1], lines[n:]...), "\n"), true
	case strings.Contains(msg, "match block is empty") && strings.HasPrefix(cmd, "E ") && n < len(lines) && strings.TrimRight(lines[n], "\r \t") == ".":
		return strings.Join(append(lines[:n-1:n-1], lines[n+1:]...), "\n"), true
	case strings.Contains(msg, "text after the"):
		return strings.Join(lines[:n-1], "\n"), true
	case strings.Contains(msg, "expected the header"):
		i := 0
		for i < len(lines) && (strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(strings.TrimSpace(lines[i]), "#")) {
			i++
		}
		if i > 0 && i < len(lines) && strings.TrimRight(lines[i], "\r") == "LP1" {
			return strings.Join(lines[i:], "\n"), true
		}
	}
	return patch, false
}

// keepFinalNewline emulates Forge's reading of LP1's conflict I-LP-11:
// final_newline is the preimage's unless an N op is applied, even after
// every line was erased on the way. Where the reference's reading (an
// emptied file loses it for good) gives a different result, an "N +" is
// added at the end of the file's last section.
func keepFinalNewline(patch, wd string) (string, bool) {
	p, err := lp1.Parse(patch)
	if err != nil {
		return patch, false
	}
	lines := strings.Split(patch, "\n")
	footer := len(lines) // 1-based line of END
	for footer > 0 && strings.TrimRight(lines[footer-1], "\r") != "END" {
		footer--
	}
	type fileOps struct {
		ops  []lp1.Op
		last int // index of the file's last section
	}
	files := map[string]*fileOps{}
	var order []string
	for i, s := range p.Sections {
		f := files[s.Path]
		if f == nil {
			f = &fileOps{}
			files[s.Path] = f
			order = append(order, s.Path)
		}
		f.ops = append(f.ops, s.Ops...)
		f.last = i
	}
	var inserts []int
	for _, path := range order {
		f := files[path]
		data, err := os.ReadFile(join(wd, path))
		if err != nil {
			continue
		}
		pre, err := lp1.Decode(data)
		if err != nil || !pre.FinalNewline {
			continue
		}
		hasN := false
		for _, op := range f.ops {
			hasN = hasN || op.Kind == lp1.SetFinalNewline
		}
		post, err := lp1.Apply(pre, f.ops)
		if err != nil || hasN || post.FinalNewline || len(post.Lines) == 0 {
			continue
		}
		at := footer
		if f.last+1 < len(p.Sections) {
			at = p.Sections[f.last+1].Line
		}
		inserts = append(inserts, at)
	}
	if len(inserts) == 0 || footer == 0 {
		return patch, false
	}
	sort.Sort(sort.Reverse(sort.IntSlice(inserts)))
	for _, at := range inserts {
		lines = append(lines[:at-1], append([]string{"N +"}, lines[at-1:]...)...)
	}
	return strings.Join(lines, "\n"), true
}

func forgeMessage(msg string) string {
	for _, w := range forgeWord {
		if w.re.MatchString(msg) {
			return w.word
		}
	}
	return lineRefs.ReplaceAllString(msg, "")
}

// ---- write_file ----

func (h *handler) writeFile(ctx context.Context, req fcp.Request, args map[string]any) fcp.Response {
	if bad := badPath(args); bad != nil {
		return *bad
	}
	resp := h.ref.Handle(ctx, req)
	p, _ := args["path"].(string)
	abs := canonical(join(req.Ctx.WorkingDir, p))
	if resp.Error != nil && strings.Contains(resp.Error.Message, "already exists") {
		e := *resp.Error
		e.Message = fmt.Sprintf("file already exists: %s. Use apply_patch to modify existing files.", abs)
		resp.Error = &e
		return resp
	}
	if resp.OK == nil || !*resp.OK || resp.Content == nil {
		return resp
	}
	var out struct {
		BytesWritten int64 `json:"bytes_written"`
	}
	_ = json.Unmarshal([]byte(*resp.Content), &out)
	s := fmt.Sprintf("Created %s (%d bytes)", abs, out.BytesWritten)
	resp.Content = &s
	// Forge records the new file's SHA-256 in the read cache.
	read := req
	read.Call = &fcp.Call{ID: req.Call.ID + "-cache", Name: "read_file"}
	read.Call.Args, _ = json.Marshal(map[string]any{"path": p})
	_ = h.ref.Handle(ctx, read)
	return resp
}

// ---- read_file ----

const (
	sniffBytes       = 8192
	header           = "[binary:base64]"
	headerTruncated  = "[binary:base64][truncated]"
	defaultScanBytes = 2097152
)

func (h *handler) readFile(ctx context.Context, req fcp.Request, args map[string]any) fcp.Response {
	if bad := badPath(args); bad != nil {
		return *bad
	}
	resp := h.ref.Handle(ctx, req)
	limit := req.Ctx.EffectiveMax()
	if resp.Error != nil && strings.Contains(resp.Error.Message, "output budget too small") {
		// Forge returns the header cut to the limit.
		s := (headerTruncated + "\n")[:min(int64(len(headerTruncated)+1), max(limit, 0))]
		return fcp.Response{OK: fcp.Bool(true), Content: &s, AllowTruncation: fcp.Bool(false)}
	}
	if resp.OK == nil || !*resp.OK || resp.Content == nil {
		return resp
	}
	if strings.HasPrefix(*resp.Content, header+" [truncated]\n") {
		s := headerTruncated + strings.TrimPrefix(*resp.Content, header+" [truncated]")
		resp.Content = &s
		return resp
	}
	if strings.HasPrefix(*resp.Content, header) {
		return resp
	}
	p, _ := args["path"].(string)
	abs := join(req.Ctx.WorkingDir, p)
	fi, err := os.Stat(abs)
	if err != nil {
		return resp
	}
	_, ranged1 := args["start_line"]
	_, ranged2 := args["end_line"]
	if ranged1 || ranged2 {
		scan := int64(defaultScanBytes)
		var cfg struct {
			Tools struct {
				ReadFile struct {
					MaxScanBytes *int64 `json:"max_scan_bytes"`
				} `json:"read_file"`
			} `json:"tools"`
		}
		if json.Unmarshal(req.Config, &cfg) == nil && cfg.Tools.ReadFile.MaxScanBytes != nil {
			scan = *cfg.Tools.ReadFile.MaxScanBytes
		}
		if fi.Size() > scan {
			return fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "ExecutionFailed", Tool: "read_file",
				Message: fmt.Sprintf("File exceeds the scan limit of %d bytes; narrow the line range", scan)}}
		}
		return resp
	}
	if fi.Size() <= sniffBytes {
		return resp
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return resp
	}
	if !utf8.Valid(data[:sniffBytes]) {
		s := binary(data, limit)
		return fcp.Response{OK: fcp.Bool(true), Content: &s, AllowTruncation: fcp.Bool(false)}
	}
	if !utf8.Valid(data) {
		return fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "ExecutionFailed", Tool: "read_file",
			Message: "stream did not contain valid UTF-8"}}
	}
	return resp
}

// binary renders data as Forge does, within limit bytes.
func binary(data []byte, limit int64) string {
	full := header + "\n" + base64.StdEncoding.EncodeToString(data)
	if int64(len(full)) <= limit {
		return full
	}
	room := limit - int64(len(headerTruncated)) - 1
	if room < 0 {
		return (headerTruncated + "\n")[:max(limit, 0)]
	}
	n := min(int64(len(data)), room/4*3)
	return headerTruncated + "\n" + base64.StdEncoding.EncodeToString(data[:n])
}
