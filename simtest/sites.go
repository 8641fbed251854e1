package simtest

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/simrt/simrt"
)

// simrtPath is the import path of the package that declares the property
// functions and Buggify.
const simrtPath = "github.com/simrt/simrt"

// sourceSite is a call of a property function or of Buggify found in the
// source, with a constant message (or site name).
type sourceSite struct {
	fn       string             // "Always", ..., "Buggify"
	kind     simrt.PropertyKind // 0 for Buggify
	message  string             // the message, or Buggify's site name
	file     string             // short form: last directory and file name
	from, to int                // the lines the call spans
	dynamic  bool               // the message is not a constant (message is "")
}

// messageArg is the index of the constant argument of each function.
var messageArg = map[string]int{
	"Always": 2, "AlwaysOrUnreachable": 2, "Sometimes": 2,
	"Reachable": 1, "Unreachable": 1, "Buggify": 1,
}

var kindOf = map[string]simrt.PropertyKind{
	"Always": simrt.PropertyAlways, "AlwaysOrUnreachable": simrt.PropertyAlwaysOrUnreachable,
	"Sometimes": simrt.PropertySometimes, "Reachable": simrt.PropertyReachable,
	"Unreachable": simrt.PropertyUnreachable,
}

// scanSites returns the calls of the property functions and of Buggify
// in the package in dir (its test files included) and in every package of
// the same module it imports, directly or not (their test files excluded).
// Files that the default build context excludes (another GOOS, a build
// tag) are skipped. A call whose message is not a constant is returned
// marked dynamic, without a message. Errors (no go.mod, an unparsable
// file) end the scan with what was found so far.
func scanSites(dir string) []sourceSite {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	modDir, modPath := findModule(dir)
	seen := map[string]bool{}
	var sites []sourceSite
	var visit func(dir string, tests bool)
	visit = func(dir string, tests bool) {
		if seen[dir] || len(seen) >= 500 {
			return
		}
		seen[dir] = true
		found, imports := scanPackage(dir, tests)
		sites = append(sites, found...)
		if modPath == "" {
			return
		}
		for _, imp := range imports {
			rel, ok := strings.CutPrefix(imp, modPath)
			if !ok || (rel != "" && rel[0] != '/') {
				continue
			}
			visit(filepath.Join(modDir, filepath.FromSlash(rel)), false)
		}
	}
	visit(dir, true)
	slices.SortFunc(sites, func(a, b sourceSite) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.from - b.from
	})
	return sites
}

// findModule returns the directory and module path of the go.mod at or
// above dir, or "", "".
func findModule(dir string) (string, string) {
	for d := dir; ; {
		if f, err := os.Open(filepath.Join(d, "go.mod")); err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
					path := strings.TrimSpace(rest)
					if p, err := strconv.Unquote(path); err == nil {
						path = p
					}
					return d, path
				}
			}
			return "", ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// scanPackage parses the package in dir and returns its sites and the
// import paths of its files.
func scanPackage(dir string, tests bool) ([]sourceSite, []string) {
	fset := token.NewFileSet()
	files, imports := parsePackage(fset, dir, tests)
	consts := packageConsts(files)
	var sites []sourceSite
	for _, f := range files {
		sites = append(sites, fileSites(fset, f, consts)...)
	}
	return sites, imports
}

// parsePackage parses the Go files of dir (with its tests if tests is
// set) into fset and returns those that may call a site function, whole,
// and the imports of every file.
func parsePackage(fset *token.FileSet, dir string, tests bool) (files []*ast.File, imports []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || (!tests && strings.HasSuffix(name, "_test.go")) {
			continue
		}
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// Most files call none of the functions: their imports are enough
		// (followed even from a file the build excludes: a few packages
		// too many are harmless).
		mode := parser.ImportsOnly
		if mentionsSite(src) {
			if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
				continue
			}
			mode = parser.SkipObjectResolution
		}
		f, err := parser.ParseFile(fset, path, src, mode)
		if err != nil {
			continue
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			imports = append(imports, p)
		}
		if mode != parser.ImportsOnly {
			files = append(files, f)
		}
	}
	return files, imports
}

// simrtName returns the name f refers to package simrt by ("simrt", an
// alias, "." for a dot import), or "" if f does not import it.
func simrtName(f *ast.File) string {
	local := ""
	for _, spec := range f.Imports {
		if p, _ := strconv.Unquote(spec.Path.Value); p != simrtPath {
			continue
		}
		local = "simrt"
		if spec.Name != nil {
			local = spec.Name.Name
		}
	}
	return local
}

// fileSites returns the calls of site functions in f, with their message
// when it is a constant string (consts are the package's string
// constants), else marked dynamic.
func fileSites(fset *token.FileSet, f *ast.File, consts map[string]string) []sourceSite {
	local := simrtName(f)
	if local == "" || local == "_" {
		return nil
	}
	var sites []sourceSite
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := ""
		switch fun := call.Fun.(type) {
		case *ast.SelectorExpr:
			if x, ok := fun.X.(*ast.Ident); ok && x.Name == local {
				fn = fun.Sel.Name
			}
		case *ast.Ident:
			if local == "." {
				fn = fun.Name
			}
		}
		i, ok := messageArg[fn]
		if !ok || len(call.Args) <= i {
			return true
		}
		msg, ok := constString(call.Args[i], consts)
		from, to := fset.Position(call.Pos()), fset.Position(call.End())
		sites = append(sites, sourceSite{fn: fn, kind: kindOf[fn], message: msg,
			file: shortFile(from.Filename), from: from.Line, to: to.Line, dynamic: !ok})
		return true
	})
	return sites
}

// siteNames are the calls a file must mention to be parsed in full.
var siteNames = [][]byte{[]byte("Always("), []byte("AlwaysOrUnreachable("), []byte("Sometimes("),
	[]byte("Reachable("), []byte("Unreachable("), []byte("Buggify(")}

// mentionsSite reports whether src may call a property function or
// Buggify.
func mentionsSite(src []byte) bool {
	for _, n := range siteNames {
		if bytes.Contains(src, n) {
			return true
		}
	}
	return false
}

// packageConsts returns the package-level string constants of files whose
// values are literals or sums of them.
func packageConsts(files []*ast.File) map[string]string {
	consts := map[string]string{}
	for range 2 { // a second pass resolves constants defined from later ones
		for _, f := range files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if v, ok := constString(vs.Values[i], consts); ok {
								consts[name.Name] = v
							}
						}
					}
				}
			}
		}
	}
	return consts
}

// constString evaluates a constant string expression: a literal, a
// package-level constant, a parenthesised one or a sum of them.
func constString(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	case *ast.ParenExpr:
		return constString(e.X, consts)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok1 := constString(e.X, consts)
		b, ok2 := constString(e.Y, consts)
		return a + b, ok1 && ok2
	}
	return "", false
}

// shortFile returns the last directory and the name of path, the form in
// which source sites and the sites of a run are compared (the binary may
// record paths absolute or, with -trimpath, module-relative).
func shortFile(path string) string {
	path = filepath.ToSlash(path)
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if j := strings.LastIndexByte(path[:i], '/'); j >= 0 {
			return path[j+1:]
		}
	}
	return path
}
