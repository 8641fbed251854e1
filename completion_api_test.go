package simrt_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// TestRootCannotCompleteAHandle: the user's API (the root package) gives no
// way to make a handle and complete it: that is the storage implementers'
// side (storage.NewCompletion, storage.Ready).
func TestRootCannotCompleteAHandle(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pkgs["simrt"].Files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && (fn.Name.Name == "NewCompletion" || fn.Name.Name == "Ready") {
				t.Errorf("the root package exports %s: completing a handle is for storage implementers", fn.Name.Name)
			}
		}
	}
}
