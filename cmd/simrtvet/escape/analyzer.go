package escape

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// Analyzer reports code that escapes simrt's simulator. See the package
// documentation for what it reports, its fixes and its suppression
// comments.
var Analyzer = &analysis.Analyzer{
	Name: "simrtvet",
	Doc: `report code that escapes simrt's simulator

In packages that import simrt, simrtvet reports go statements, native
channel operations and select, the wall clock (time.Now, Sleep, After, ...),
math/rand top-level functions, crypto/rand reads, sync locks and waits,
runtime.Gosched, file and network I/O through os and net, and range over a
map whose body sends, appends, writes or returns. Silence a line with
//simrt:allow REASON, a file with //simrt:allow-file REASON above its
package clause.`,
	URL:      "https://pkg.go.dev/github.com/simrt/simrt/cmd/simrtvet/escape",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

// simrtPath is the module whose import puts a package in scope.
const simrtPath = "github.com/simrt/simrt"

// importsSimrt reports whether pkg imports simrt or one of its packages.
func importsSimrt(pkg *types.Package) bool {
	for _, p := range pkg.Imports() {
		if p.Path() == simrtPath || strings.HasPrefix(p.Path(), simrtPath+"/") {
			return true
		}
	}
	return false
}

// checker is one pass over a package.
type checker struct {
	pass  *analysis.Pass
	allow allowed
}

func run(pass *analysis.Pass) (any, error) {
	if !importsSimrt(pass.Pkg) {
		return nil, nil
	}
	c := &checker{pass: pass, allow: scanAllows(pass)}
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	filter := []ast.Node{
		(*ast.GoStmt)(nil), (*ast.SendStmt)(nil), (*ast.UnaryExpr)(nil),
		(*ast.SelectStmt)(nil), (*ast.RangeStmt)(nil), (*ast.SelectorExpr)(nil),
	}
	insp.WithStack(filter, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || !c.underSimulation(stack) {
			return true
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			c.report(n.Pos(), n.Go+2, nil, "go statement: a native goroutine runs outside the simulator; start the work with simrt.Spawn")
		case *ast.SendStmt:
			if isChan(pass.TypesInfo.TypeOf(n.Chan)) {
				c.report(n.Arrow, n.Arrow+2, nil, "native channel send: it blocks outside the simulator; use a simrt.Chan")
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && isChan(pass.TypesInfo.TypeOf(n.X)) {
				c.report(n.OpPos, n.X.End(), nil, "native channel receive: it blocks outside the simulator; use a simrt.Chan (or a Select case)")
			}
		case *ast.SelectStmt:
			c.report(n.Select, n.Select+6, nil, "native select: it blocks outside the simulator; use simrt.Select")
		case *ast.RangeStmt:
			t := pass.TypesInfo.TypeOf(n.X)
			if isChan(t) {
				c.report(n.For, n.X.End(), nil, "range over a native channel: it blocks outside the simulator; use a simrt.Chan")
			} else if isMap(t) {
				c.mapRange(n, stack)
			}
		case *ast.SelectorExpr:
			c.selector(n)
		}
		return true
	})
	return nil, nil
}

// underSimulation reports whether the node at the top of stack is code
// that may run under the simulator: anything outside test files, and in
// test files the code of functions (and function literals) that take a
// simrt context, such as a simtest.Explore root. The rest of a test file
// is the harness that starts simulations, which may time them on the wall
// clock or run them on native goroutines.
func (c *checker) underSimulation(stack []ast.Node) bool {
	if len(stack) == 0 {
		return false
	}
	name := c.pass.Fset.Position(stack[0].Pos()).Filename
	if !strings.HasSuffix(name, "_test.go") {
		return true
	}
	for i := len(stack) - 1; i >= 0; i-- {
		var ft *ast.FuncType
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			ft = f.Type
		case *ast.FuncLit:
			ft = f.Type
		default:
			continue
		}
		if c.takesSimrt(ft) {
			return true
		}
	}
	return false
}

// takesSimrt reports whether a function has a parameter of a simrt type
// (simrt.Context, *deterministic.Context, ...).
func (c *checker) takesSimrt(ft *ast.FuncType) bool {
	for _, field := range ft.Params.List {
		t := c.pass.TypesInfo.TypeOf(field.Type)
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := t.(*types.Named)
		if !ok || n.Obj().Pkg() == nil {
			continue
		}
		if path := n.Obj().Pkg().Path(); path == simrtPath || strings.HasPrefix(path, simrtPath+"/") {
			return true
		}
	}
	return false
}

func isChan(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Chan)
	return ok
}

func isMap(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Map)
	return ok
}

// report reports msg at [pos, end) unless an allow comment covers it.
func (c *checker) report(pos, end token.Pos, fixes []analysis.SuggestedFix, msg string) {
	if c.allow.covers(c.pass.Fset, pos) {
		return
	}
	c.pass.Report(analysis.Diagnostic{Pos: pos, End: end, Message: msg, SuggestedFixes: fixes})
}

// allowed records the lines and files that allow comments silence.
type allowed struct {
	files map[string]bool         // file name → silenced
	lines map[string]map[int]bool // file name → silenced lines
}

const (
	allowLine = "//simrt:allow"
	allowFile = "//simrt:allow-file"
)

// scanAllows finds the allow comments of the package's files and reports
// those without a reason.
func scanAllows(pass *analysis.Pass) allowed {
	a := allowed{files: map[string]bool{}, lines: map[string]map[int]bool{}}
	for _, f := range pass.Files {
		for _, g := range f.Comments {
			for _, cm := range g.List {
				var directive string
				switch {
				case strings.HasPrefix(cm.Text, allowFile):
					directive = allowFile
				case strings.HasPrefix(cm.Text, allowLine) && !strings.HasPrefix(cm.Text, allowLine+"-"):
					directive = allowLine
				default:
					continue
				}
				if strings.TrimSpace(cm.Text[len(directive):]) == "" {
					pass.Report(analysis.Diagnostic{Pos: cm.Pos(), End: cm.End(),
						Message: directive[2:] + " needs a reason: " + directive + " why this code may escape the simulator"})
					continue
				}
				p := pass.Fset.Position(cm.Pos())
				if directive == allowFile {
					if cm.Pos() < f.Package {
						a.files[p.Filename] = true
					} else {
						pass.Report(analysis.Diagnostic{Pos: cm.Pos(), End: cm.End(),
							Message: "simrt:allow-file belongs above the package clause"})
					}
					continue
				}
				if a.lines[p.Filename] == nil {
					a.lines[p.Filename] = map[int]bool{}
				}
				a.lines[p.Filename][p.Line] = true   // at the end of the line
				a.lines[p.Filename][p.Line+1] = true // alone on the line above
			}
		}
	}
	return a
}

func (a allowed) covers(fset *token.FileSet, pos token.Pos) bool {
	p := fset.Position(pos)
	return a.files[p.Filename] || a.lines[p.Filename][p.Line]
}
