// Package plainrewrite rewrites the goroutine and channel operations of
// type-checked Go files into calls of the overlaid standard-library package
// simrthook, for simrt's plain-Go mode (docs/PLAIN-GO.md): go statements,
// sends, receives (plain, comma-ok, range), close, select and
// runtime.Gosched. Types stay as they are: a chan T stays a chan T.
//
// The rewrite edits the source text in place rather than printing a new
// syntax tree: everything it does not rewrite keeps its bytes, and every
// rewritten construct keeps its line, so stacks, coverage and compiler
// messages point at the user's lines.
package plainrewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Version identifies the rewrite; caches of rewritten files key on it.
const Version = "plainrewrite-5"

// HookImport is the import path of the hook package.
const HookImport = "simrthook"

// PlainImport is the import path of the runtime side, which rewritten test
// files import for the test driver (plaingo.Enter).
const PlainImport = "github.com/simrt/simrt/plaingo"

// File is one file to rewrite.
type File struct {
	Fset   *token.FileSet
	Syntax *ast.File
	Src    []byte // the file's source, as parsed
	Info   *types.Info
	// WrapTests inserts `if plaingo.Enter(t, TestX) { return }` at the top
	// of each TestX(t *testing.T) (the test files of the packages under
	// test).
	WrapTests bool
}

// Result is a rewritten file.
type Result struct {
	Src     []byte
	Changed bool
}

// Rewrite rewrites f. It returns Changed false, and f.Src, when the file
// has nothing to rewrite.
func Rewrite(f File) (Result, error) {
	tf := f.Fset.File(f.Syntax.Pos())
	if tf == nil {
		return Result{}, fmt.Errorf("plainrewrite: file not in its FileSet")
	}
	r := &rewriter{File: f, tf: tf}
	decls := make([]ast.Node, len(f.Syntax.Decls))
	for i, d := range f.Syntax.Decls {
		decls[i] = d
	}
	edits := r.edits(decls...)
	if f.WrapTests {
		edits = append(edits, r.wrapTests()...)
	}
	if r.err != nil {
		return Result{}, r.err
	}
	if len(edits) == 0 {
		return Result{Src: f.Src}, nil
	}
	var imports []string
	if r.usesHook && !importsAs(f.Syntax, HookImport, "simrthook") {
		imports = append(imports, "import simrthook "+strconv.Quote(HookImport))
	}
	if r.usesPlain {
		imports = append(imports, "import _simrtplain "+strconv.Quote(PlainImport))
	}
	if len(imports) > 0 {
		at := r.off(f.Syntax.Name.End())
		edits = append(edits, edit{at, at, "; " + strings.Join(imports, "; ")})
	}
	out := apply(f.Src, 0, len(f.Src), edits)
	return Result{Src: []byte(out), Changed: true}, nil
}

type rewriter struct {
	File
	tf        *token.File
	n         int // names made so far
	usesHook  bool
	usesPlain bool
	err       error
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

func (r *rewriter) off(p token.Pos) int { return r.tf.Offset(p) }

// apply returns src[from:to] with edits (inside that range, disjoint) applied.
func apply(src []byte, from, to int, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	at := from
	for _, e := range edits {
		if e.start < at {
			panic("plainrewrite: overlapping edits")
		}
		b.Write(src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(src[at:to])
	return b.String()
}

// text returns the source of n with the rewrites inside it applied.
func (r *rewriter) text(n ast.Node) string {
	return apply(r.Src, r.off(n.Pos()), r.off(n.End()), r.edits(n))
}

// textRange returns the source of [from, to) with the rewrites of nodes
// (which lie inside it) applied.
func (r *rewriter) textRange(from, to token.Pos, nodes ...ast.Node) string {
	return apply(r.Src, r.off(from), r.off(to), r.edits(nodes...))
}

func (r *rewriter) name(kind string) string {
	r.n++
	return "_simrt" + kind + strconv.Itoa(r.n)
}

func (r *rewriter) fail(n ast.Node, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %s", r.Fset.Position(n.Pos()), fmt.Sprintf(format, args...))
	}
}

// edits returns the rewrites of the constructs inside nodes.
func (r *rewriter) edits(nodes ...ast.Node) []edit {
	var out []edit
	for _, root := range nodes {
		if root == nil {
			continue
		}
		ast.Inspect(root, func(n ast.Node) bool {
			text, ok := r.rewrite(n)
			if ok {
				out = append(out, edit{r.off(n.Pos()), r.off(n.End()), text})
				return false
			}
			return true
		})
	}
	return out
}

// rewrite returns the replacement of n, if n is a construct to rewrite.
func (r *rewriter) rewrite(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.GoStmt:
		return r.goStmt(n), true
	case *ast.SendStmt:
		r.usesHook = true
		return "simrthook.On(" + r.text(n.Chan) + ").Send(" + r.text(n.Value) + ")", true
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			r.usesHook = true
			return "simrthook.Recv(" + r.text(n.X) + ")", true
		}
	case *ast.AssignStmt:
		if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
			if u, ok := unparen(n.Rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				r.usesHook = true
				return r.textRange(n.Pos(), n.Rhs[0].Pos(), nodes(n.Lhs)...) + "simrthook.Recv2(" + r.text(u.X) + ")", true
			}
		}
	case *ast.ValueSpec:
		if len(n.Names) == 2 && len(n.Values) == 1 {
			if u, ok := unparen(n.Values[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				r.usesHook = true
				return r.textRange(n.Pos(), n.Values[0].Pos(), n.Type) + "simrthook.Recv2(" + r.text(u.X) + ")" +
					r.textRange(n.Values[0].End(), n.End()), true
			}
		}
	case *ast.CallExpr:
		if r.isBuiltin(n.Fun, "close") && len(n.Args) == 1 {
			r.usesHook = true
			return "simrthook.Close" + r.textRange(n.Lparen, n.End(), nodes(n.Args)...), true
		}
		if r.isGosched(n.Fun) {
			r.usesHook = true
			return "simrthook.Gosched(" + r.text(n.Fun) + ")", true
		}
	case *ast.RangeStmt:
		if r.isChan(n.X) {
			return r.rangeChan(n), true
		}
	case *ast.SelectStmt:
		return r.selectStmt(n, nil), true
	case *ast.LabeledStmt:
		if s, ok := n.Stmt.(*ast.SelectStmt); ok {
			return r.selectStmt(s, n.Label), true
		}
	}
	return "", false
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// isBuiltin reports whether fun names the predeclared function name.
func (r *rewriter) isBuiltin(fun ast.Expr, name string) bool {
	id, ok := unparen(fun).(*ast.Ident)
	if !ok || id.Name != name {
		return false
	}
	_, ok = r.Info.Uses[id].(*types.Builtin)
	return ok
}

// isGosched reports whether fun is runtime.Gosched.
func (r *rewriter) isGosched(fun ast.Expr) bool {
	sel, ok := unparen(fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Gosched" {
		return false
	}
	f, ok := r.Info.Uses[sel.Sel].(*types.Func)
	return ok && f.Pkg() != nil && f.Pkg().Path() == "runtime"
}

// isChan reports whether e is a channel (its core type is one).
func (r *rewriter) isChan(e ast.Expr) bool {
	t := r.Info.TypeOf(e)
	if t == nil {
		return false
	}
	if tp, ok := t.(*types.TypeParam); ok {
		var ch bool
		if it, ok := tp.Underlying().(*types.Interface); ok {
			for i := range it.NumEmbeddeds() {
				if u, ok := it.EmbeddedType(i).(*types.Union); ok && u.Len() > 0 {
					_, ch = u.Term(0).Type().Underlying().(*types.Chan)
				}
			}
		}
		return ch
	}
	_, ok := t.Underlying().(*types.Chan)
	return ok
}

// lineAt is a directive that gives the text after it the position p.
func (r *rewriter) lineAt(p token.Pos) string {
	pos := r.Fset.Position(p)
	return fmt.Sprintf("/*line %s:%d:%d*/", pos.Filename, pos.Line, pos.Column)
}

// keepLines pads text with the newlines the original of n had and text
// lost, so that what follows stays on its line.
func (r *rewriter) keepLines(n ast.Node, text string) string {
	orig := strings.Count(string(r.Src[r.off(n.Pos()):r.off(n.End())]), "\n")
	if d := orig - strings.Count(text, "\n"); d > 0 {
		return text + strings.Repeat("\n", d)
	} else if d < 0 {
		return text + r.lineAt(n.End())
	}
	return text
}

var testName = regexp.MustCompile(`^Test($|[^a-z])`)

// wrapTests returns the edits that make each TestX of the file enter the
// plain-Go test driver first.
func (r *rewriter) wrapTests() []edit {
	var out []edit
	for _, d := range r.Syntax.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil || !testName.MatchString(fd.Name.Name) || fd.Type.TypeParams != nil {
			continue
		}
		obj, ok := r.Info.Defs[fd.Name].(*types.Func)
		if !ok {
			continue
		}
		sig := obj.Type().(*types.Signature)
		if sig.Params().Len() != 1 || sig.Results().Len() != 0 || !isTestingT(sig.Params().At(0).Type()) {
			continue
		}
		field := fd.Type.Params.List[0]
		param := ""
		switch {
		case len(field.Names) == 0:
			param = "_simrtT"
			at := r.off(field.Type.Pos())
			out = append(out, edit{at, at, param + " "})
		case field.Names[0].Name == "_":
			param = "_simrtT"
			out = append(out, edit{r.off(field.Names[0].Pos()), r.off(field.Names[0].End()), param})
		default:
			param = field.Names[0].Name
		}
		at := r.off(fd.Body.Lbrace) + 1
		out = append(out, edit{at, at, " if _simrtplain.Enter(" + param + ", " + fd.Name.Name + ") { return };"})
		r.usesPlain = true
	}
	return out
}

func isTestingT(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "testing" && n.Obj().Name() == "T"
}

func nodes[N ast.Node](list []N) []ast.Node {
	out := make([]ast.Node, len(list))
	for i, n := range list {
		out[i] = n
	}
	return out
}

// importsAs reports whether file imports path under name (explicitly, or
// as its package name when the path is that name): the rewrite then adds
// no second import of it, which would not compile.
func importsAs(file *ast.File, path, name string) bool {
	for _, spec := range file.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil || p != path {
			continue
		}
		if spec.Name == nil && path == name || spec.Name != nil && spec.Name.Name == name {
			return true
		}
	}
	return false
}
