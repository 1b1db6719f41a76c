// Package writefile is the reference implementation of Forge's write_file
// tool (WRITE_FILE_SRD.md v1.1), read as recorded in
// spec/INTERPRETATIONS.md (I-WR-01..04).
//
// A call validates the path with the sandbox, refuses any existing entry at
// it, creates missing parent directories, writes the content to a temp file
// in the target directory, fsyncs it and links it into place with an
// operation that fails if the name exists, so no half-written file is ever
// visible and nothing is overwritten (fsys.LinkNoReplace). On failure
// nothing it created is left behind. All filesystem access goes through the
// call's afero.Fs, so permission emulation and fault injection apply.
//
// Tool.Options takes the other readings the SRD allows (impl/readings
// names them); the zero value is the reference's.
package writefile

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Name is the tool's name (FR-WR-01).
const Name = "write_file"

// Description is the tool's description.
const Description = "Create a new file with the given content"

// The modes of created files and directories (I-WR-02), before the umask.
const (
	fileMode fs.FileMode = 0o644
	dirMode  fs.FileMode = 0o755
)

//go:embed schema.json
var schema []byte

// Tool is the write_file executor.
type Tool struct {
	// Options choose among the readings the SRD allows; the zero value is
	// the reference's.
	Options Options
}

// Options are the readings of write_file the tool can take where the SRD
// leaves room (spec/INTERPRETATIONS.md; package impl/readings names them).
// The zero value is the reference's reading of each.
type Options struct {
	// CreatedText answers "Created <canonical absolute path> (<n> bytes)"
	// instead of the JSON object (I-WR-01 "created-text").
	CreatedText bool
	// NoParents fails a path whose parent directory does not exist
	// (ExecutionFailed) instead of creating the missing directories
	// (I-WR-02 "no-parents").
	NoParents bool
	// CreateNew opens the path itself with create-new (O_EXCL, no-follow)
	// and writes into it, removing it if the write fails, instead of
	// linking a complete temp file into place (I-WR-03 "create-new").
	CreateNew bool
	// RecordRead records the new file's SHA-256 in the read cache, so that
	// apply_patch may patch it without a read_file first (I-WR-04
	// "recorded").
	RecordRead bool
}

var _ tool.Tool = Tool{}

// Name implements tool.Tool.
func (Tool) Name() string { return Name }

// Description implements tool.Tool.
func (Tool) Description() string { return Description }

// Schema returns the argument schema (FR-WR-02) under Draft 2020-12.
func (Tool) Schema() json.RawMessage { return slices.Clone(schema) }

// SideEffecting implements tool.Tool: the tool creates files.
func (Tool) SideEffecting() bool { return true }

// RequiresApproval implements tool.Tool. The approval policy decides, as for
// every side-effecting tool (NFR-WR-SEC-02); the tool does not force a
// prompt on its own.
func (Tool) RequiresApproval() bool { return false }

// RiskLevel implements tool.Tool: Medium, as for side-effecting tools.
func (Tool) RiskLevel() tool.RiskLevel { return tool.Medium }

// Timeout is [tools.timeouts] file_operations_seconds, 30 s by default
// (CFG-TMO-01a); the registry applies it (tool.Timeouter).
func (Tool) Timeout(cfg config.Config) time.Duration { return tool.FileOperationsTimeout(cfg) }

// ApprovalSummary is "Write <path> (<N> bytes)", <path> as requested and N
// the content's length in bytes. The content itself is never shown; the
// path goes through tool.Summarize, which redacts secrets and keeps at most
// 200 characters. It parses the arguments exactly as Execute does and
// touches no file.
func (Tool) ApprovalSummary(raw json.RawMessage, _ config.Config) (string, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	return tool.Summarize(fmt.Sprintf("Write %s (%d bytes)", a.Path, len(a.Content))), nil
}

// Execute creates the file and returns
// {"status":"created","path":"<path as requested>","bytes_written":N}
// (I-WR-01). Failures are *toolerr.Error values.
func (t Tool) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	if c.Sandbox == nil {
		return "", toolerr.Failed(Name, "no sandbox configured; the caller must build one from [tools.sandbox]")
	}
	canon, err := c.Sandbox.Validate(a.Path)
	if err != nil {
		return "", err
	}
	w := &writer{ctx: ctx, fs: c.FS, sb: c.Sandbox, path: a.Path, canon: canon, opts: t.Options}
	if err := w.create(a.Content); err != nil {
		w.cleanup()
		return "", err
	}
	if t.Options.RecordRead && c.Session != nil {
		c.Session.RecordRead(session.Read{Path: canon, SHA256: sha256.Sum256([]byte(a.Content)), At: time.Now()})
	}
	if t.Options.CreatedText {
		return fmt.Sprintf("Created %s (%s)", canon, plural(len(a.Content))), nil
	}
	out := canonjson.AppendKey([]byte{'{'}, "status", true)
	out = canonjson.AppendString(out, "created")
	out = canonjson.AppendKey(out, "path", false)
	out = canonjson.AppendString(out, a.Path)
	out = canonjson.AppendKey(out, "bytes_written", false)
	out = canonjson.AppendInt(out, int64(len(a.Content)))
	return string(append(out, '}')), nil
}

// writer is one call's creation of a validated path. It remembers what it
// created so that a failure can remove it.
type writer struct {
	ctx   context.Context
	fs    afero.Fs
	sb    *sandbox.Sandbox
	path  string // as requested, for messages
	canon string
	opts  Options

	temp    string   // the temp file while it exists
	created []string // directories created, outermost first
}

// create performs the steps of I-WR-02 and I-WR-03.
func (w *writer) create(content string) error {
	_, err := fsys.Lstat(w.fs, w.canon)
	switch {
	case err == nil:
		return w.exists()
	case errors.Is(err, syscall.ENOTDIR):
		return toolerr.Failed(Name, "cannot create %s: a parent in the path is a file, not a directory; choose another path", w.path)
	case !errors.Is(err, fs.ErrNotExist):
		return toolerr.Failed(Name, "cannot access %s: %s", w.path, fsys.ErrText(err))
	}
	dir := filepath.Dir(w.canon)
	if w.opts.NoParents {
		if fi, err := fsys.Lstat(w.fs, dir); err != nil || !fi.IsDir() {
			return toolerr.Failed(Name, "cannot create %s: its directory does not exist; create the directory first", w.path)
		}
	}
	if err := w.makeParents(dir); err != nil {
		return err
	}
	// FR-VAL-06 fallback: the directory must still be where validation
	// found it, with no symlink swapped in along the way.
	if got, err := sandbox.Canonicalize(w.fs, dir); err != nil || got != dir {
		return toolerr.Failed(Name, "the directory of %s changed while it was being written (now %q, %v); retry the call", w.path, got, err)
	}
	if w.opts.CreateNew {
		return w.writeNew(content)
	}
	if err := w.writeTemp(dir, content); err != nil {
		return err
	}
	if err := w.checkCtx(); err != nil {
		return err
	}
	if err := fsys.LinkNoReplace(w.fs, w.temp, w.canon); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return w.exists()
		}
		return toolerr.Failed(Name, "cannot create %s: %s", w.path, fsys.ErrText(err))
	}
	// The file is in place. A temp name that cannot be removed is a second
	// link to the same content; the call still succeeded.
	_ = w.fs.Remove(w.temp)
	w.temp, w.created = "", nil
	syncDir(w.fs, dir)
	return nil
}

func (w *writer) exists() error {
	return toolerr.Failed(Name, "already exists: %s; write_file only creates new files, use apply_patch to change an existing one", w.path)
}

// makeParents creates the missing directories above the target, one level
// at a time with dirMode, and records them. Every one of them lies inside an
// allowed root; an existing ancestor must be a real directory.
func (w *writer) makeParents(dir string) error {
	var missing []string
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := fsys.Lstat(w.fs, p)
		if err == nil {
			if !fi.IsDir() {
				return toolerr.Failed(Name, "cannot create %s: %s is not a directory; choose another path", w.path, p)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || p == filepath.Dir(p) {
			return toolerr.Failed(Name, "cannot create the parent directories of %s: %s", w.path, fsys.ErrText(err))
		}
		missing = append(missing, p)
	}
	for _, p := range missing {
		if !w.inside(p) {
			return toolerr.Violation(toolerr.Denial{Reason: toolerr.PathOutsideSandbox, Attempted: w.path, Resolved: p})
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		p := missing[i]
		if err := w.fs.Mkdir(p, dirMode); err != nil {
			// Someone else may have created it meanwhile; a real directory
			// is fine, but it is not ours to remove.
			if fi, lerr := fsys.Lstat(w.fs, p); lerr == nil && fi.IsDir() {
				continue
			}
			return toolerr.Failed(Name, "cannot create directory %s for %s: %s", p, w.path, fsys.ErrText(err))
		}
		w.created = append(w.created, p)
	}
	return nil
}

// inside reports whether p is an allowed root or lies below one.
func (w *writer) inside(p string) bool {
	for _, root := range w.sb.Roots() {
		if p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/") {
			return true
		}
	}
	return false
}

// writeTemp writes content to a new temp file in dir and fsyncs it. The
// name does not depend on the target's, so it cannot exceed NAME_MAX.
func (w *writer) writeTemp(dir, content string) error {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL | syscall.O_NOFOLLOW
	var f afero.File
	for attempt := 0; ; attempt++ {
		var rnd [8]byte
		if _, err := rand.Read(rnd[:]); err != nil {
			return toolerr.Failed(Name, "cannot name a temp file for %s: %v", w.path, err)
		}
		name := filepath.Join(dir, ".write_file-"+hex.EncodeToString(rnd[:])+".tmp")
		var err error
		f, err = w.fs.OpenFile(name, flags, fileMode)
		if err == nil {
			w.temp = name
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt == 4 {
			return toolerr.Failed(Name, "cannot create %s: %s", w.path, fsys.ErrText(err))
		}
	}
	_, err := f.WriteString(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return toolerr.Failed(Name, "cannot write %s: %s", w.path, fsys.ErrText(err))
	}
	return nil
}

// checkCtx turns the call's cancellation or timeout into its error.
func (w *writer) checkCtx() error {
	switch err := w.ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		return toolerr.New(toolerr.Timeout, "writing %s timed out; nothing was created", w.path)
	case err != nil:
		return toolerr.New(toolerr.Cancelled, "writing %s was cancelled; nothing was created", w.path)
	}
	return nil
}

// writeNew is Options.CreateNew: the path is opened with create-new and
// no-follow, so an existing entry is never replaced, and removed again if
// the content cannot be written whole.
func (w *writer) writeNew(content string) error {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL | syscall.O_NOFOLLOW
	f, err := w.fs.OpenFile(w.canon, flags, fileMode)
	if errors.Is(err, fs.ErrExist) {
		return w.exists()
	}
	if err != nil {
		return toolerr.Failed(Name, "cannot create %s: %s", w.path, fsys.ErrText(err))
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.checkCtx()
	}
	if err != nil {
		_ = w.fs.Remove(w.canon)
		var te *toolerr.Error
		if errors.As(err, &te) {
			return err
		}
		return toolerr.Failed(Name, "cannot write %s: %s", w.path, fsys.ErrText(err))
	}
	w.created = nil
	return nil
}

// plural returns "1 byte" or "n bytes".
func plural(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// cleanup removes the temp file and the directories this call created,
// innermost first. A directory someone else has put something in stays.
func (w *writer) cleanup() {
	if w.temp != "" {
		_ = w.fs.Remove(w.temp)
		w.temp = ""
	}
	for i := len(w.created) - 1; i >= 0; i-- {
		_ = w.fs.Remove(w.created[i])
	}
	w.created = nil
}

// syncDir makes the new directory entry durable, best effort: the file is
// already complete and in place either way.
func syncDir(afs afero.Fs, dir string) {
	d, err := afs.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
