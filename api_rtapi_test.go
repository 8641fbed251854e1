package simrt_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// TestUserAPIDoesNotNameRtapi: what go doc shows of the root package (its
// exported declarations and their comments) never sends a reader to
// package rtapi, the runtime authors' half; the primitives take a Caller.
func TestUserAPIDoesNotNameRtapi(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	check := func(pos token.Pos, what string, n ast.Node, doc *ast.CommentGroup) {
		if doc != nil && strings.Contains(doc.Text(), "rtapi") {
			t.Errorf("%s: the comment of %s names rtapi", fset.Position(pos), what)
		}
		if n == nil {
			return
		}
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "rtapi" {
				t.Errorf("%s: %s names rtapi", fset.Position(id.Pos()), what)
			}
			return true
		})
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			check(f.Package, "the package comment", nil, f.Doc)
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() {
						check(d.Pos(), d.Name.Name, d.Type, d.Doc)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								check(s.Pos(), s.Name.Name, s.Type, s.Doc)
								check(s.Pos(), s.Name.Name, nil, d.Doc)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									check(s.Pos(), n.Name, s.Type, s.Doc)
								}
							}
						}
					}
				}
			}
		}
	}
}
