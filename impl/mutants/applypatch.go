package mutants

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/lp1"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// patchFile is one file an apply_patch call names: its canonical path and
// its sections, in patch order.
type patchFile struct {
	canon    string
	sections []lp1.Section
}

// parsePatch returns the patch text of apply_patch arguments, the lines of
// that text and the files it names, grouped by canonical path; ok is false
// when any of it is unavailable (the tool then reports the problem).
func parsePatch(args json.RawMessage, c *tool.Ctx) (text string, files []*patchFile, ok bool) {
	var a struct {
		Patch string `json:"patch"`
	}
	if json.Unmarshal(args, &a) != nil || c.Sandbox == nil {
		return "", nil, false
	}
	p, err := lp1.Parse(a.Patch)
	if err != nil {
		return "", nil, false
	}
	byCanon := map[string]*patchFile{}
	for _, s := range p.Sections {
		canon, err := c.Sandbox.Validate(s.Path)
		if err != nil {
			return "", nil, false
		}
		f := byCanon[canon]
		if f == nil {
			f = &patchFile{canon: canon}
			byCanon[canon] = f
			files = append(files, f)
		}
		f.sections = append(f.sections, s)
	}
	return a.Patch, files, true
}

// withPatch returns args with the patch text replaced.
func withPatch(text string) json.RawMessage {
	raw, _ := json.Marshal(map[string]string{"patch": text})
	return raw
}

// recordCurrent records c's current content of canon as read.
func recordCurrent(c *tool.Ctx, canon string) {
	if c.Session == nil {
		return
	}
	if data, err := afero.ReadFile(c.FS, canon); err == nil {
		c.Session.RecordRead(session.Read{Path: canon, SHA256: sha256.Sum256(data), At: time.Now()})
	}
}

// skipStaleCheck records every existing file the patch names as read
// just before the call, so files never read, or changed since they were
// read, are patched all the same.
func skipStaleCheck(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	if _, files, ok := parsePatch(args, c); ok {
		for _, f := range files {
			recordCurrent(c, f.canon)
		}
	}
	return inner(ctx, args, c)
}

// nonAtomic applies the patch one file at a time: a failure in a later
// file leaves the earlier ones written. Each call gets the whole patch
// with the other files' lines turned into comments, so that line numbers
// in errors stay those of the patch sent.
func nonAtomic(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	text, files, ok := parsePatch(args, c)
	if !ok || len(files) < 2 {
		return inner(ctx, args, c)
	}
	lines := strings.SplitAfter(text, "\n")
	footer := len(lines) - 1
	for footer > 0 && strings.TrimSpace(lines[footer]) != "END" {
		footer--
	}
	var starts []int // 0-based first line of every section, in patch order
	for _, f := range files {
		for _, s := range f.sections {
			starts = append(starts, s.Line-1)
		}
	}
	slices.Sort(starts)
	end := func(start int) int {
		i, _ := slices.BinarySearch(starts, start)
		if i+1 < len(starts) {
			return starts[i+1]
		}
		return footer
	}
	var outs []string
	for _, f := range files {
		own := slices.Clone(lines)
		for _, g := range files {
			if g == f {
				continue
			}
			for _, s := range g.sections {
				for i := s.Line - 1; i < end(s.Line-1); i++ {
					own[i] = commentOut(own[i])
				}
			}
		}
		out, err := inner(ctx, withPatch(strings.Join(own, "")), c)
		if err != nil {
			return out, err
		}
		if out != "No changes applied." {
			outs = append(outs, out)
		}
	}
	if len(outs) == 0 {
		return "No changes applied.", nil
	}
	return strings.Join(outs, "\n"), nil
}

// commentOut turns a patch line into an LP1 comment, keeping its line
// ending.
func commentOut(line string) string {
	body := strings.TrimRight(line, "\r\n")
	return "#" + line[len(body):]
}

// newlineOnCreate gives every file the call creates a final newline the
// patch did not ask for.
func newlineOnCreate(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	_, files, ok := parsePatch(args, c)
	var missing []string
	if ok {
		for _, f := range files {
			if _, err := fsys.Lstat(c.FS, f.canon); errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, f.canon)
			}
		}
	}
	out, err := inner(ctx, args, c)
	if err != nil {
		return out, err
	}
	for _, canon := range missing {
		data, err := afero.ReadFile(c.FS, canon)
		if err != nil || len(data) == 0 || data[len(data)-1] == '\n' {
			continue
		}
		eol := "\n"
		if strings.Contains(string(data), "\r\n") {
			eol = "\r\n"
		}
		h, err := c.FS.OpenFile(canon, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			continue
		}
		_, werr := h.WriteString(eol)
		if h.Close() == nil && werr == nil {
			recordCurrent(c, canon)
		}
	}
	return out, nil
}

// occLine matches an R, I, P or E command line with an occurrence.
var occLine = regexp.MustCompile(`^([ \t]*[RIPE][ \t]+)([0-9]+)`)

// occFromEnd counts an occurrence selector from the bottom of the file:
// occurrence k of n runs of the match block is sent as n-k+1, n counted in
// the content as the earlier operations of the patch leave it.
func occFromEnd(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	text, files, ok := parsePatch(args, c)
	if !ok {
		return inner(ctx, args, c)
	}
	lines := strings.SplitAfter(text, "\n")
	changed := false
	for _, f := range files {
		data, err := afero.ReadFile(c.FS, f.canon)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		cur, err := lp1.Decode(data)
		if err != nil {
			continue
		}
	ops:
		for _, s := range f.sections {
			for _, op := range s.Ops {
				if op.Occ > 0 {
					n := 0
					for i := 0; i+len(op.Match) <= len(cur.Lines); i++ {
						if slices.Equal(cur.Lines[i:i+len(op.Match)], op.Match) {
							n++
						}
					}
					if op.Occ <= n && n-op.Occ+1 != op.Occ {
						op.Occ = n - op.Occ + 1
						lines[op.Line-1] = occLine.ReplaceAllString(lines[op.Line-1], "${1}"+strconv.Itoa(op.Occ))
						changed = true
					}
				}
				if cur, err = lp1.Apply(cur, []lp1.Op{op}); err != nil {
					break ops
				}
			}
		}
	}
	if !changed {
		return inner(ctx, args, c)
	}
	return inner(ctx, withPatch(strings.Join(lines, "")), c)
}
