package mutation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Package is one Go package with its mutants.
type Package struct {
	// Path is the import path, Rel the directory relative to the module
	// root (slash-separated): "impl/tools/listdir".
	Path, Rel string
	// Files holds the package's non-test files by their name in keys
	// (Rel + "/" + base name), with their absolute path and bytes.
	Files map[string]File
	// Sites lists the mutants of every file, in file then source order.
	Sites []Site

	fset    *token.FileSet
	syntax  map[string]*ast.File
	order   []string
	imports map[string]*types.Package
}

// File is one source file of a package.
type File struct {
	Abs string
	Src []byte
}

// Load parses and type-checks the packages matching patterns in the
// module at root, and lists their mutants; a file named in skipFiles (by
// its key name, "impl/fsys/fault.go") has none. Packages that do not
// type-check are an error.
func Load(root string, patterns []string, skipFiles map[string]bool) ([]*Package, error) {
	cfg := &packages.Config{Dir: root, Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	var out []*Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("package %s does not build: %v (fix it first: go build ./...)", p.PkgPath, p.Errors[0])
		}
		if len(p.GoFiles) == 0 {
			continue
		}
		rel, err := filepath.Rel(root, filepath.Dir(p.GoFiles[0]))
		if err != nil {
			return nil, err
		}
		mp := &Package{Path: p.PkgPath, Rel: filepath.ToSlash(rel), Files: map[string]File{}, fset: p.Fset,
			syntax: map[string]*ast.File{}, imports: map[string]*types.Package{}}
		for _, imp := range p.Types.Imports() {
			mp.imports[imp.Path()] = imp
		}
		for _, f := range p.Syntax {
			abs := p.Fset.File(f.Pos()).Name()
			name := mp.Rel + "/" + filepath.Base(abs)
			src, err := os.ReadFile(abs)
			if err != nil {
				return nil, err
			}
			mp.Files[name] = File{Abs: abs, Src: src}
			mp.syntax[name] = f
			mp.order = append(mp.order, name)
			if !skipFiles[name] {
				mp.Sites = append(mp.Sites, Sites(p.Fset, f, name, src, p.TypesInfo)...)
			}
		}
		out = append(out, mp)
	}
	return out, nil
}

// Check type-checks the package with the site's mutation applied: nil
// when the mutant compiles (as far as the type checker sees: the compiler
// may still refuse it, e.g. a constant overflow it alone detects).
func (p *Package) Check(s Site) error {
	f := p.Files[s.File]
	mutated, err := parser.ParseFile(p.fset, f.Abs, s.Apply(f.Src), parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	files := make([]*ast.File, 0, len(p.order))
	for _, name := range p.order {
		if name == s.File {
			files = append(files, mutated)
		} else {
			files = append(files, p.syntax[name])
		}
	}
	var first error
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if ip, ok := p.imports[path]; ok {
				return ip, nil
			}
			return nil, fmt.Errorf("%s: not imported before the mutation", path)
		}),
		Error: func(err error) {
			if first == nil {
				first = err
			}
		},
	}
	if _, err := conf.Check(p.Path, p.fset, files, nil); err != nil && first == nil {
		first = err
	}
	return first
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
