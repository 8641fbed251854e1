package plainrewrite

import (
	"bytes"
	"flag"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden rewrites each testdata/*.input and compares the result with
// its .golden file; the result must parse, and every function must keep
// its first and last line.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.input")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			out := rewrite(t, in, src)
			golden := strings.TrimSuffix(in, ".input") + ".golden"
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("rewrite of %s differs from %s (go test -update to accept):\n%s", in, golden, out)
			}
			checkLines(t, src, out)
		})
	}
}

func rewrite(t *testing.T, name string, src []byte) []byte {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: hookImporter{importer.Default()}}
	if _, err := conf.Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	res, err := Rewrite(File{Fset: fset, Syntax: f, Src: src, Info: info, WrapTests: strings.Contains(name, "_test")})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed {
		t.Fatalf("%s: nothing rewritten", name)
	}
	return res.Src
}

// checkLines fails unless out parses and each function of src starts and
// ends on the same lines in out.
func checkLines(t *testing.T, src, out []byte) {
	t.Helper()
	lines := func(data []byte) map[string][2]int {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", data, 0)
		if err != nil {
			t.Fatalf("does not parse: %v\n%s", err, data)
		}
		m := map[string][2]int{}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				m[fd.Name.Name] = [2]int{fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line}
			}
		}
		return m
	}
	before, after := lines(src), lines(out)
	for name, l := range before {
		if after[name] != l {
			t.Errorf("func %s spans lines %v, rewritten %v", name, l, after[name])
		}
	}
}

// TestUnchanged leaves a file without channel syntax alone.
func TestUnchanged(t *testing.T) {
	src := []byte("package p\n\nfunc f(xs []int) int { return len(xs) }\n")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "u.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	res, err := Rewrite(File{Fset: fset, Syntax: f, Src: src, Info: info})
	if err != nil || res.Changed || !bytes.Equal(res.Src, src) {
		t.Fatalf("changed %v, err %v:\n%s", res.Changed, err, res.Src)
	}
}

// hookImporter adds a stand-in for simrthook, which exists only in the
// overlay.
type hookImporter struct{ types.Importer }

func (h hookImporter) Import(path string) (*types.Package, error) {
	if path != HookImport {
		return h.Importer.Import(path)
	}
	pkg := types.NewPackage(HookImport, "simrthook")
	sig := types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(types.NewVar(token.NoPos, pkg, "", types.Typ[types.Bool])), false)
	pkg.Scope().Insert(types.NewFunc(token.NoPos, pkg, "Active", sig))
	pkg.MarkComplete()
	return pkg, nil
}
