package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// root is the repository's top directory, relative to this package.
const root = "../.."

// documents lists the Markdown files the checks read, relative to root.
func documents(t *testing.T) []string {
	t.Helper()
	docs := []string{"README.md", "CI.md"}
	specs, err := filepath.Glob(filepath.Join(root, "spec", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		docs = append(docs, filepath.ToSlash(strings.TrimPrefix(s, root+string(filepath.Separator))))
	}
	err = filepath.WalkDir(filepath.Join(root, "examples"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "target" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "README") {
			rel, _ := filepath.Rel(root, p)
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return docs
}

func read(t *testing.T, doc string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// jsonObjects returns every outermost balanced {...} of text (JSON strings
// respected), with the line it starts on.
func jsonObjects(text string) (objs []string, lines []int) {
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		depth, inString := 0, false
		end := -1
	scan:
		for j := i; j < len(text); j++ {
			c := text[j]
			switch {
			case inString && c == '\\':
				j++
			case c == '"':
				inString = !inString
			case inString:
			case c == '{':
				depth++
			case c == '}':
				depth--
				if depth == 0 {
					end = j
					break scan
				}
			}
		}
		if end < 0 {
			continue
		}
		objs = append(objs, text[i:end+1])
		lines = append(lines, 1+strings.Count(text[:i], "\n"))
		i = end
	}
	return objs, lines
}

var opMember = regexp.MustCompile(`^\{\s*(?:"[a-z_]+"\s*:\s*[^,]*,\s*)*"op"\s*:`)

// Every FCP/1 request shown in README.md and PROTOCOL.md is a request the
// schemas accept: a JSON object with fcp, seq and op and nothing undefined.
func TestRequestExamplesValidate(t *testing.T) {
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"README.md", "spec/PROTOCOL.md"} {
		objs, lines := jsonObjects(read(t, doc))
		n := 0
		for k, obj := range objs {
			if !strings.Contains(obj, `"op"`) || !opMember.MatchString(obj) {
				continue // a response, an event or a table: no op at the top
			}
			n++
			if err := v.ValidateRequest([]byte(obj)); err != nil {
				t.Errorf("%s:%d: request example does not validate: %s\n  %s", doc, lines[k], fcpschema.DescribeError(err), obj)
			}
		}
		if n < 3 {
			t.Errorf("%s: %d request examples found (the extraction is broken)", doc, n)
		}
		t.Logf("%s: %d request examples", doc, n)
	}
}

// fcpOps reads the Op* string constants of package spec/fcp from its source,
// so that a new op fails this test until PROTOCOL.md names it.
func fcpOps(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, filepath.Join(root, "spec", "fcp"), func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Op") || i >= len(vs.Values) {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							op, err := strconv.Unquote(lit.Value)
							if err != nil {
								t.Fatal(err)
							}
							ops = append(ops, op)
						}
					}
				}
			}
		}
	}
	sort.Strings(ops)
	return ops
}

// PROTOCOL.md §2's envelope table names every op package fcp defines.
func TestProtocolEnvelopeNamesEveryOp(t *testing.T) {
	ops := fcpOps(t)
	if len(ops) < 12 {
		t.Fatalf("found only %d Op constants in spec/fcp (%v): the source scan is broken", len(ops), ops)
	}
	var row string
	for _, l := range strings.Split(read(t, "spec/PROTOCOL.md"), "\n") {
		if strings.HasPrefix(l, "| `op` |") {
			row = l
			break
		}
	}
	if row == "" {
		t.Fatal("spec/PROTOCOL.md has no envelope row for `op` (a line starting with \"| `op` |\")")
	}
	for _, op := range ops {
		if !strings.Contains(row, "`"+op+"`") {
			t.Errorf("PROTOCOL.md §2's op row does not name %q: %s", op, row)
		}
	}
}

var (
	fence      = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	pathLike   = regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_./-]*$`)
	lineSuffix = regexp.MustCompile(`:\d+$`)
)

// exists reports whether p exists below base.
func exists(base, p string) bool {
	_, err := os.Stat(filepath.Join(root, base, filepath.FromSlash(p)))
	return err == nil
}

// checkPath says what is wrong with ref, a path a document in dir names, or
// "" when it is not a repository path or exists. A path is taken to be the
// repository's when its first component exists at the top of the repository
// or beside the document (so `list_directory/budget-*`, a case glob, is not).
func checkPath(dir, ref string) string {
	ref = lineSuffix.ReplaceAllString(strings.TrimSuffix(ref, "."), "")
	if !pathLike.MatchString(ref) || strings.HasPrefix(ref, "..") || strings.HasPrefix(ref, ".git/") {
		return ""
	}
	first, _, nested := strings.Cut(strings.TrimSuffix(ref, "/"), "/")
	if !nested && !strings.Contains(first, ".") && !strings.HasSuffix(ref, "/") {
		return "" // a bare word: a name, not a path
	}
	for _, base := range []string{".", dir} {
		if first != "" && exists(base, first) {
			if exists(base, ref) {
				return ""
			}
			if nested {
				return "names " + ref + ", which does not exist"
			}
		}
	}
	return ""
}

// No document names a repository file or folder that does not exist.
func TestDocumentedPathsExist(t *testing.T) {
	for _, doc := range documents(t) {
		text := read(t, doc)
		dir := filepath.ToSlash(filepath.Dir(doc))
		prose := fence.ReplaceAllString(text, "")
		var refs []string
		for _, m := range inlineCode.FindAllStringSubmatch(prose, -1) {
			refs = append(refs, m[1])
		}
		for _, m := range mdLink.FindAllStringSubmatch(prose, -1) {
			if target := m[1]; !strings.Contains(target, "://") && !strings.HasPrefix(target, "#") {
				ref, _, _ := strings.Cut(target, "#")
				// A link is relative to the document.
				if ref != "" && !exists(dir, ref) {
					t.Errorf("%s: links to %s, which does not exist", doc, ref)
				}
			}
		}
		checked := 0
		for _, ref := range refs {
			if msg := checkPath(dir, ref); msg != "" {
				t.Errorf("%s: %s", doc, msg)
			} else if isPath(dir, ref) {
				checked++
			}
		}
		t.Logf("%s: %d repository paths named, all exist", doc, checked)
	}
}

// README installs the binaries with go install, never into a system folder.
func TestReadmeInstallsWithGoInstall(t *testing.T) {
	readme := read(t, "README.md")
	for _, want := range []string{"go install ./cmd/forge-conform", "go install ./cmd/forge-ref", "go install ./cmd/forge-tui"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
	if regexp.MustCompile(`go build -o /(usr|opt)/`).MatchString(readme) {
		t.Error("README.md builds into a system folder; install with go install")
	}
	lines := strings.SplitN(readme, "\n", 6)
	if len(lines) < 5 || !strings.HasPrefix(lines[3], "go run ./cmd/forge-conform ") || !strings.HasPrefix(lines[4], "go test ./... ") {
		t.Error("README.md's first two commands are `go run ./cmd/forge-conform` and `go test ./...`")
	}
}

// isPath reports whether checkPath took ref for a repository path (for the log).
func isPath(dir, ref string) bool {
	ref = lineSuffix.ReplaceAllString(strings.TrimSuffix(ref, "."), "")
	return pathLike.MatchString(ref) && (exists(".", ref) || exists(dir, ref)) && strings.ContainsAny(ref, "./")
}

// The checks themselves: a missing path is caught, names and globs are not paths.
func TestCheckPath(t *testing.T) {
	for _, c := range []struct {
		dir, ref string
		bad      bool
	}{
		{".", "spec/PROTOCOL.md", false},
		{".", "spec/NOPE.md", true},
		{".", "examples/python/forge_tools.py", false},
		{".", "conformance/cases/list_directory/t-ld-01-listing.json:989", false},
		{".", "conformance/cases/nope/", true},
		{".", "list_directory/budget-*", false},
		{".", "T-LD-05", false},
		{".", "/usr/share/cargo/registry", false},
		{"spec", "fcp/schema/", false},
		{"spec", "fcp/nope.json", true},
	} {
		if got := checkPath(c.dir, c.ref) != ""; got != c.bad {
			t.Errorf("checkPath(%q, %q) reports a problem: %v, want %v", c.dir, c.ref, got, c.bad)
		}
	}
	objs, _ := jsonObjects("a `{\"op\":\"x\",\"s\":\"}{\"}` b {\"n\":{\"m\":1}}")
	if len(objs) != 2 || objs[0] != `{"op":"x","s":"}{"}` {
		t.Errorf("jsonObjects = %q", objs)
	}
}
