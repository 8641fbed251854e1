package simrt_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/simrt/simrt"

// layerRule is one rule of the library's layering: packages matched by
// from may import only the module's packages that allowed accepts.
type layerRule struct {
	name    string
	from    func(pkg string) bool
	allowed func(imp string) bool
}

func under(prefixes ...string) func(string) bool {
	return func(p string) bool {
		for _, x := range prefixes {
			if p == x || strings.HasPrefix(p, x+"/") {
				return true
			}
		}
		return false
	}
}

func is(names ...string) func(string) bool {
	return func(p string) bool { return slices.Contains(names, p) }
}

func not(f func(string) bool) func(string) bool { return func(p string) bool { return !f(p) } }

var layerRules = []layerRule{
	{"only simtest, plaingo and nemesis import the simulator",
		not(is("simtest", "plaingo", "nemesis")), not(is("deterministic"))},
	{"no library package imports the production runtime",
		func(string) bool { return true }, not(is("realtime"))},
	{"the root (the user's API) imports only internal/core and rtapi",
		is(""), is("internal/core", "rtapi")},
	{"shared formats and leaves import at most the root and the audit labels",
		is("deterministic/decision", "deterministic/pool", "simtest/coverfile", "telemetry/audit", "telemetry/trace", "internal/shrink", "internal/core", "sweep"),
		is("", "telemetry/audit", "deterministic/pool")},
	{"devices and their layers import no runtime and no shell",
		under("storage", "network"), not(under("deterministic", "realtime", "internal/shell", "simtest", "nemesis", "sweep"))},
	{"suites import no runtime package: they reach a runtime under test only through suite.Runtime",
		is("suite", "runtimetest", "network/nettest", "storage/storagetest"), is("", "suite", "storage")},
	{"telemetry imports no runtime, shell or test harness",
		under("telemetry"), not(under("deterministic", "realtime", "internal/shell", "simtest", "nemesis", "sweep", "suite", "runtimetest"))},
}

// TestLayering checks the library module's imports (non-test files)
// against layerRules, and that the library depends only on the standard
// library, the Prometheus client and its own packages, and that only the
// test drivers (simtest and plaingo) read flags.
func TestLayering(t *testing.T) {
	imports := map[string][]string{} // package (relative to the module, "" for the root) -> imports
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != "." {
			if n := d.Name(); strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module: not the library
			}
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(path)
		if pkg == "." {
			pkg = ""
		}
		for _, p := range pkgs {
			for _, f := range p.Files {
				for _, im := range f.Imports {
					v, _ := strconv.Unquote(im.Path.Value)
					imports[pkg] = append(imports[pkg], v)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 10 {
		t.Fatalf("found only %d packages", len(imports))
	}
	name := func(p string) string {
		if p == "" {
			return "simrt (root)"
		}
		return p
	}
	for pkg, ims := range imports {
		for _, imp := range ims {
			switch {
			case imp == module || strings.HasPrefix(imp, module+"/"):
				rel := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
				for _, r := range layerRules {
					if r.from(pkg) && !r.allowed(rel) {
						t.Errorf("%s imports %s: breaks %q", name(pkg), name(rel), r.name)
					}
				}
			case imp == "flag" && pkg != "simtest" && pkg != "plaingo":
				t.Errorf("%s imports flag: only the test drivers (simtest, plaingo) read flags", name(pkg))
			case strings.Contains(strings.Split(imp, "/")[0], ".") && !strings.HasPrefix(imp, "github.com/prometheus/"):
				t.Errorf("%s imports %s: the library depends only on the standard library and the Prometheus client", name(pkg), imp)
			}
		}
	}
}
