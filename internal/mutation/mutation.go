// Package mutation enumerates the mutants of Go source files and applies
// them: each Site is one small change of one operator, literal, condition or
// statement, named by a Key that survives unrelated edits of the file, and
// Apply turns the file's bytes into the mutant's.
//
// The project has a mutation tool of its own (scripts/mutate drives this
// package) rather than gremlins or go-mutesting: those run `go test` per
// package with coverage gating, have no seeded sampling, and key their
// exclusions on file checksums that change with every edit. Here the test
// of a mutant is the conformance corpus, run by the forge-conform binary
// against the mutated reference, and a verdict names its mutant by a Key.
//
// Operators (the conventional set):
//
//	cond-boundary  <  <=  >  >=  swapped with their boundary twin
//	cond-negate    == != < <= > >=  replaced by their negation
//	logical        && and || swapped
//	not-removal    a ! removed
//	arith          + - * / % and += -= *= /= swapped (numbers only)
//	incdec         ++ and -- swapped
//	int-literal    0 -> 1, any other integer n -> n+1
//	bool-literal   true and false swapped
//	if-true        an if condition forced true
//	if-false       an if condition forced false
//	stmt-removal   a call statement removed, an assignment made inert
//
// Left alone, by rule: test files and generated files; the arguments of
// panic (a message for a bug, not behaviour); capacity hints (make's
// capacity argument, a Grow call), which change allocation only.
package mutation

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// Operator names.
const (
	OpBoundary    = "cond-boundary"
	OpNegate      = "cond-negate"
	OpLogical     = "logical"
	OpNotRemoval  = "not-removal"
	OpArith       = "arith"
	OpIncDec      = "incdec"
	OpIntLiteral  = "int-literal"
	OpBoolLiteral = "bool-literal"
	OpIfTrue      = "if-true"
	OpIfFalse     = "if-false"
	OpStmtRemoval = "stmt-removal"
)

// Site is one mutant of one file: the bytes Start..End, which read From,
// become To.
type Site struct {
	// File is the file's path as the caller named it (scripts/mutate:
	// slash-separated, relative to the module root).
	File string
	// Func is the enclosing declaration: "F", "(*T).M", "T.M", or "var x"
	// / "const x" at package level.
	Func string
	// Op is the operator (Op* constants).
	Op string
	// From and To are the replaced text and its replacement, as they
	// appear in the key (one line, long text shortened).
	From, To string
	// Ordinal counts the sites with the same File, Func, Op, From and To
	// from 1, in source order.
	Ordinal int
	// Line is the 1-based line of Start.
	Line int
	// Start and End are byte offsets into the file; Repl replaces them.
	Start, End int
	Repl       string
}

// Key names the site so that an edit elsewhere in the file (a line added
// above, another function changed) leaves it the same:
//
//	impl/tools/listdir/walk.go: (*walker).visit: cond-boundary "<" -> "<=" #2
func (s Site) Key() string {
	return fmt.Sprintf("%s: %s: %s %s -> %s #%d", s.File, s.Func, s.Op, strconv.Quote(s.From), strconv.Quote(s.To), s.Ordinal)
}

// Diff is the mutant as one line: "file:line: from -> to".
func (s Site) Diff() string {
	return fmt.Sprintf("%s:%d: %s -> %s", s.File, s.Line, strconv.Quote(s.From), strconv.Quote(s.To))
}

// Apply returns src with the site's mutation applied; src must be the
// bytes the site was found in.
func (s Site) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(s.Repl))
	out = append(out, src[:s.Start]...)
	out = append(out, s.Repl...)
	return append(out, src[s.End:]...)
}

// Sites lists the mutants of one parsed file, in source order. name is the
// file's name in the keys, src its bytes, fset the set f was parsed with.
// info, when not nil, holds the file's types: arith then mutates numeric
// operations only, and bool-literal only the predeclared true and false.
// A generated file has no sites.
func Sites(fset *token.FileSet, f *ast.File, name string, src []byte, info *types.Info) []Site {
	if ast.IsGenerated(f) {
		return nil
	}
	e := &enum{fset: fset, name: name, src: src, info: info, skip: map[ast.Node]bool{}}
	for _, d := range f.Decls {
		e.fn = declName(d)
		ast.Inspect(d, e.visit)
	}
	// Ordinals among identical mutations of one declaration.
	seen := map[string]int{}
	for i := range e.sites {
		s := &e.sites[i]
		k := s.Func + "\x00" + s.Op + "\x00" + s.From + "\x00" + s.To
		seen[k]++
		s.Ordinal = seen[k]
	}
	return e.sites
}

type enum struct {
	fset  *token.FileSet
	name  string
	src   []byte
	info  *types.Info
	fn    string
	sites []Site
	// skip holds the nodes not to descend into.
	skip map[ast.Node]bool
}

func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil || len(d.Recv.List) == 0 {
			return d.Name.Name
		}
		return "(" + exprString(d.Recv.List[0].Type) + ")." + d.Name.Name
	case *ast.GenDecl:
		var names []string
		for _, sp := range d.Specs {
			switch sp := sp.(type) {
			case *ast.ValueSpec:
				for _, n := range sp.Names {
					names = append(names, n.Name)
				}
			case *ast.TypeSpec:
				names = append(names, sp.Name.Name)
			}
		}
		if len(names) > 0 {
			return d.Tok.String() + " " + names[0]
		}
		return d.Tok.String()
	}
	return "?"
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.IndexExpr:
		return exprString(e.X)
	case *ast.IndexListExpr:
		return exprString(e.X)
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return "?"
}

func (e *enum) off(p token.Pos) int { return e.fset.Position(p).Offset }

func (e *enum) text(from, to token.Pos) string { return string(e.src[e.off(from):e.off(to)]) }

func (e *enum) add(op string, start, end token.Pos, repl string) {
	from, to := short(e.text(start, end)), short(repl)
	if op == OpStmtRemoval {
		// An assignment made inert reads as removed.
		to = ""
	}
	e.sites = append(e.sites, Site{File: e.name, Func: e.fn, Op: op, From: from, To: to,
		Line: e.fset.Position(start).Line, Start: e.off(start), End: e.off(end), Repl: repl})
}

// short is s on one line with runs of white space as one space, at most
// 60 bytes (then cut on a rune boundary and ended with "...").
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= 60 {
		return s
	}
	cut := 57
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

var boundary = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}

var negate = map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ,
	token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR}

var arith = map[token.Token]token.Token{token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO,
	token.QUO: token.MUL, token.REM: token.MUL,
	token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN,
	token.QUO_ASSIGN: token.MUL_ASSIGN}

func (e *enum) visit(n ast.Node) bool {
	if n == nil || e.skip[n] {
		return false
	}
	switch n := n.(type) {
	case *ast.CallExpr:
		if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "panic" {
			return false
		}
		e.capacityHint(n)
	case *ast.BinaryExpr:
		op := n.Op
		end := n.OpPos + token.Pos(len(op.String()))
		if t, ok := boundary[op]; ok {
			e.add(OpBoundary, n.OpPos, end, t.String())
		}
		if t, ok := negate[op]; ok {
			e.add(OpNegate, n.OpPos, end, t.String())
		}
		switch op {
		case token.LAND:
			e.add(OpLogical, n.OpPos, end, "||")
		case token.LOR:
			e.add(OpLogical, n.OpPos, end, "&&")
		}
		if t, ok := arith[op]; ok && e.numeric(n) {
			e.add(OpArith, n.OpPos, end, t.String())
		}
	case *ast.UnaryExpr:
		if n.Op == token.NOT {
			e.add(OpNotRemoval, n.OpPos, n.OpPos+1, "")
		}
	case *ast.IncDecStmt:
		t := token.DEC
		if n.Tok == token.DEC {
			t = token.INC
		}
		e.add(OpIncDec, n.TokPos, n.TokPos+2, t.String())
	case *ast.BasicLit:
		if n.Kind == token.INT {
			v := constant.MakeFromLiteral(n.Value, token.INT, 0)
			if v.Kind() != constant.Int {
				break
			}
			repl := "1"
			if constant.Sign(v) != 0 {
				repl = constant.BinaryOp(v, token.ADD, constant.MakeInt64(1)).ExactString()
			}
			e.add(OpIntLiteral, n.Pos(), n.End(), repl)
		}
	case *ast.Ident:
		if (n.Name == "true" || n.Name == "false") && e.predeclared(n) {
			repl := "true"
			if n.Name == "true" {
				repl = "false"
			}
			e.add(OpBoolLiteral, n.Pos(), n.End(), repl)
		}
	case *ast.IfStmt:
		if id, ok := n.Cond.(*ast.Ident); !ok || (id.Name != "true" && id.Name != "false") {
			e.add(OpIfTrue, n.Cond.Pos(), n.Cond.End(), "true")
			e.add(OpIfFalse, n.Cond.Pos(), n.Cond.End(), "false")
		}
	case *ast.ExprStmt:
		if c, ok := n.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return false
			}
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Grow" {
				break
			}
			e.add(OpStmtRemoval, n.Pos(), n.End(), "")
		}
	case *ast.AssignStmt:
		if len(n.Lhs) != 1 || len(n.Rhs) != 1 || n.Tok == token.DEFINE {
			break
		}
		if t, ok := arith[n.Tok]; ok && e.numericExpr(n.Lhs[0]) {
			e.add(OpArith, n.TokPos, n.TokPos+token.Pos(len(n.Tok.String())), t.String())
		}
		if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
			break
		}
		lhs, rhs := e.text(n.Lhs[0].Pos(), n.Lhs[0].End()), e.text(n.Rhs[0].Pos(), n.Rhs[0].End())
		repl := "_, _ = " + lhs + ", " + rhs
		if id, ok := n.Rhs[0].(*ast.Ident); ok && id.Name == "nil" {
			repl = "_ = " + lhs
		}
		e.add(OpStmtRemoval, n.Pos(), n.End(), repl)
	}
	return true
}

// capacityHint leaves out the capacity argument of make and the argument
// of a Grow call: they change allocation, not behaviour.
func (e *enum) capacityHint(c *ast.CallExpr) {
	skip := -1
	switch f := c.Fun.(type) {
	case *ast.Ident:
		if f.Name == "make" && len(c.Args) == 3 {
			skip = 2
		}
		if f.Name == "make" && len(c.Args) == 2 {
			if _, ok := c.Args[0].(*ast.MapType); ok {
				skip = 1
			}
		}
	case *ast.SelectorExpr:
		if f.Sel.Name == "Grow" && len(c.Args) == 1 {
			skip = 0
		}
	}
	if skip >= 0 {
		e.skip[c.Args[skip]] = true
	}
}

func (e *enum) numeric(b *ast.BinaryExpr) bool {
	if e.info == nil {
		return !isString(b.X) && !isString(b.Y)
	}
	return e.numericExpr(b.X)
}

func (e *enum) numericExpr(x ast.Expr) bool {
	if e.info == nil {
		return !isString(x)
	}
	t := e.info.TypeOf(x)
	if t == nil {
		return false
	}
	basic, ok := t.Underlying().(*types.Basic)
	return ok && basic.Info()&types.IsNumeric != 0
}

func isString(x ast.Expr) bool {
	l, ok := x.(*ast.BasicLit)
	return ok && (l.Kind == token.STRING || l.Kind == token.CHAR)
}

func (e *enum) predeclared(id *ast.Ident) bool {
	if e.info == nil {
		return true
	}
	obj := e.info.Uses[id]
	if obj == nil {
		return false
	}
	_, ok := obj.(*types.Const)
	return ok && obj.Parent() == types.Universe
}

// SortKeys sorts sites by key.
func SortKeys(s []Site) {
	sort.Slice(s, func(i, j int) bool { return s[i].Key() < s[j].Key() })
}
