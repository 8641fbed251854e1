package simrt_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryPackageHasAREADMERow: the README's package table is where a
// reader finds the home of a concept, so every package of the repository
// (the nested modules' included) has a row. A row `p` covers package p; a
// row `p/...` covers p and every package below it.
func TestEveryPackageHasAREADMERow(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(string(readme), -1)
	var exact, trees []string
	for _, r := range rows {
		if p, ok := strings.CutSuffix(r[1], "/..."); ok {
			trees = append(trees, p)
		} else {
			exact = append(exact, r[1])
		}
	}
	if len(rows) == 0 {
		t.Fatal("README.md has no package table (rows like | `deterministic` | ... |)")
	}
	covered := func(pkg string) bool {
		if slices.Contains(exact, pkg) {
			return true
		}
		for _, tr := range trees {
			if pkg == tr || strings.HasPrefix(pkg, tr+"/") {
				return true
			}
		}
		return false
	}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		if !hasGoPackage(t, path) {
			return nil
		}
		pkg := filepath.ToSlash(path)
		if pkg == "." {
			pkg = "simrt"
		}
		if !covered(pkg) {
			t.Errorf("package %s has no row in README.md's package table", pkg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hasGoPackage reports whether dir holds a Go file other than a test.
func hasGoPackage(t *testing.T, dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}
