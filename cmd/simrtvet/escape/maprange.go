package escape

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/analysis"
)

// mapRange reports a range over a map whose body can let the iteration
// order reach an output: it sends, appends, writes or returns. Collecting
// the keys to sort them (an append followed by a sort of the same slice)
// is the cure, not the disease, and is not reported.
func (c *checker) mapRange(rs *ast.RangeStmt, stack []ast.Node) {
	what := c.orderEscapes(rs.Body)
	if what == "" || c.sortedAfter(rs, stack) {
		return
	}
	c.report(rs.For, rs.X.End(), c.sortedFix(rs, stack),
		"range over a map "+what+": the map's random order reaches the result and the seed no longer replays; range over sorted keys")
}

// orderEscapes says how the body lets the order out, or "" if it does not.
func (c *checker) orderEscapes(body *ast.BlockStmt) string {
	what := ""
	ast.Inspect(body, func(n ast.Node) bool {
		if what != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs later, if ever
		case *ast.ReturnStmt:
			what = "whose body returns"
		case *ast.SendStmt:
			what = "whose body sends"
		case *ast.CallExpr:
			name := callName(n)
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && name == "append" {
				if _, builtin := c.pass.TypesInfo.Uses[id].(*types.Builtin); builtin {
					what = "whose body appends"
				}
			} else if writes(name, len(n.Args)) {
				what = "whose body writes (" + name + ")"
			}
		}
		return true
	})
	return what
}

// sortedAfter reports whether the range only appends to one slice that a
// later statement of the same block sorts (sort.X(s), slices.SortX(s)).
func (c *checker) sortedAfter(rs *ast.RangeStmt, stack []ast.Node) bool {
	if len(rs.Body.List) != 1 {
		return false
	}
	as, ok := rs.Body.List[0].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return false
	}
	dst := identOf(as.Lhs[0])
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if dst == nil || !ok || callName(call) != "append" || len(call.Args) == 0 {
		return false
	}
	obj := c.pass.TypesInfo.ObjectOf(dst)
	block, _ := parent(stack).(*ast.BlockStmt)
	if block == nil || obj == nil {
		return false
	}
	after := false
	for _, st := range block.List {
		if st == rs {
			after = true
			continue
		}
		if !after {
			continue
		}
		found := false
		ast.Inspect(st, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return !found
			}
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := c.pass.TypesInfo.Uses[identOf(sel.X)].(*types.PkgName)
			if !ok || (pkg.Imported().Path() != "sort" && pkg.Imported().Path() != "slices") {
				return true
			}
			if arg := identOf(call.Args[0]); arg != nil && c.pass.TypesInfo.ObjectOf(arg) == obj {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// parent returns the node that holds the last node of stack.
func parent(stack []ast.Node) ast.Node {
	if len(stack) < 2 {
		return nil
	}
	return stack[len(stack)-2]
}

// sortedFix rewrites "for k, v := range m {" to "for _, k := range
// slices.Sorted(maps.Keys(m)) { v := m[k]", importing maps and slices,
// when k is a named, ordered key and m a plain name or field.
func (c *checker) sortedFix(rs *ast.RangeStmt, stack []ast.Node) []analysis.SuggestedFix {
	key := identOf(rs.Key)
	if key == nil || key.Name == "_" || rs.Tok != token.DEFINE || !simpleExpr(rs.X) {
		return nil
	}
	kt := c.pass.TypesInfo.TypeOf(rs.X).Underlying().(*types.Map).Key()
	if b, ok := kt.Underlying().(*types.Basic); !ok || b.Info()&types.IsOrdered == 0 {
		return nil
	}
	var src bytes.Buffer
	if err := format.Node(&src, c.pass.Fset, rs.X); err != nil {
		return nil
	}
	m := src.String()
	edits := []analysis.TextEdit{{
		Pos: rs.Key.Pos(), End: rs.X.End(),
		NewText: []byte("_, " + key.Name + " := range slices.Sorted(maps.Keys(" + m + "))"),
	}}
	if v := identOf(rs.Value); v != nil && v.Name != "_" {
		at := rs.Body.Rbrace
		if len(rs.Body.List) > 0 {
			at = rs.Body.List[0].Pos()
		}
		edits = append(edits, analysis.TextEdit{Pos: at, End: at,
			NewText: []byte(v.Name + " := " + m + "[" + key.Name + "]\n")})
	}
	file := fileOf(stack)
	for _, path := range []string{"maps", "slices"} {
		if e, ok := addImport(file, path); ok {
			edits = append(edits, e)
		}
	}
	return []analysis.SuggestedFix{{Message: "range over slices.Sorted(maps.Keys(" + m + "))", TextEdits: edits}}
}

// simpleExpr reports whether e is a name or a chain of field selections,
// safe to evaluate again in the loop body.
func simpleExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return simpleExpr(e.X)
	}
	return false
}

func fileOf(stack []ast.Node) *ast.File {
	if len(stack) == 0 {
		return nil
	}
	f, _ := stack[0].(*ast.File)
	return f
}

// addImport returns the edit that imports path into file, unless it is
// imported already.
func addImport(file *ast.File, path string) (analysis.TextEdit, bool) {
	if file == nil {
		return analysis.TextEdit{}, false
	}
	quoted := strconv.Quote(path)
	for _, im := range file.Imports {
		if im.Path.Value == quoted {
			return analysis.TextEdit{}, false
		}
	}
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Lparen.IsValid() {
			return analysis.TextEdit{Pos: g.Lparen + 1, End: g.Lparen + 1, NewText: []byte("\n\t" + quoted)}, true
		}
	}
	return analysis.TextEdit{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport " + quoted)}, true
}
