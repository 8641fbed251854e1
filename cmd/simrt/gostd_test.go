package main

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/ast/astutil"
)

// goStdPackage is one standard-library package whose own tests run under
// the plain-Go mode: the external test files copied from the installed Go
// (never committed here), and the declarations left out of them, each with
// its reason. These lists are the conformance record of issue 31 for sync
// and context (docs/PLAIN-GO.md repeats them).
type goStdPackage struct {
	pkg   string
	files []string
	// skip names the files of the package's directory that are not copied,
	// with the reason.
	skip map[string]string
	// drop names top-level declarations left out of the copied files,
	// with the reason.
	drop map[string]string
	// noParallel removes t.Parallel() calls: one plain simulation runs at
	// a time in a process, and a test that pauses for t.Parallel inside
	// its simulation blocks the simulation natively.
	noParallel bool
	// extra is a file added to the copies, declaring what a dropped
	// declaration provided; flags are go test flags for the run.
	extra string
	flags []string
}

const (
	reasonExport  = "uses the package's export_test.go or unexported names, which only an in-package test sees"
	reasonExec    = "re-executes the test binary (internal/testenv, os/exec)"
	reasonSubtest = "calls t.Run inside its simulation: the subtest runs on a native goroutine that inherits the task's profiler labels, so the hooks take it for a task and the run hangs (testing is not rewritten yet, goroutine side)"
	reasonCleanup = "waits for the collector's cleanups through a runtime linkname: finalizers and cleanups are inert in a simulation"
)

var goStdPackages = []goStdPackage{
	{
		pkg:   "sync",
		files: []string{"cond_test.go", "mutex_test.go", "once_test.go", "oncefunc_test.go", "pool_test.go", "rwmutex_test.go", "waitgroup_test.go"},
		skip: map[string]string{
			"export_test.go":        "in-package (package sync)",
			"map_test.go":           "imports internal/sync and internal/testenv",
			"map_reference_test.go": "helpers of map_test.go",
			"map_bench_test.go":     "benchmarks only, on map_reference_test.go",
			"runtime_sema_test.go":  "benchmarks only, of the runtime semaphore through export_test.go",
			"example_test.go":       "examples, no TestX",
			"example_pool_test.go":  "examples, no TestX",
		},
		drop: map[string]string{
			"TestSemaphore":                       reasonExport,
			"HammerSemaphore":                     reasonExport,
			"BenchmarkUncontendedSemaphore":       reasonExport,
			"BenchmarkContendedSemaphore":         reasonExport,
			"TestMutexMisuse":                     reasonExec,
			"init":                                reasonExec + " (mutex_test.go's init runs the misuse cases)",
			"misuseTests":                         reasonExec,
			"TestIssue76126":                      reasonExec,
			"TestPool":                            "expects Get to return what Put stored; in a simulation a Pool never reuses (reuse would depend on the collector and the P), and it pins through export_test.go",
			"TestPoolNew":                         "as TestPool",
			"TestPoolGC":                          "counts finalizers run by the collector: inert in a simulation",
			"TestPoolRelease":                     "as TestPoolGC",
			"testPool":                            "as TestPoolGC",
			"TestPoolDequeue":                     reasonExport,
			"TestPoolChain":                       reasonExport,
			"testPoolDequeue":                     reasonExport,
			"TestOnceXGC":                         reasonCleanup,
			"runCleanups":                         reasonCleanup,
			"runtime_blockUntilEmptyCleanupQueue": reasonCleanup,
			"TestOnceFuncGoexit":                  "runtime.Goexit in a goroutine ends the task's coroutine (not intercepted yet: the goroutine side, h-plaingo)",
		},
	},
	{
		pkg:   "context",
		files: []string{"afterfunc_test.go", "net_test.go", "x_test.go"},
		skip: map[string]string{
			"context_test.go":   "in-package (package context): the XTest functions x_test.go calls",
			"benchmark_test.go": "benchmarks only",
			"example_test.go":   "examples, no TestX",
		},
		drop: map[string]string{
			"TestParentFinishesChild":     reasonExport + " (XTest in context_test.go)",
			"TestChildFinishesFirst":      reasonExport + " (XTest in context_test.go)",
			"TestCancelRemoves":           reasonExport + " (XTest in context_test.go)",
			"TestCustomContextGoroutines": reasonExport + " (XTest in context_test.go)",
			"TestAllocs":                  "counts allocations (the hooks allocate) and imports internal/asan",
			"TestContextErrDoneRace":      "spins on ctx.Err(), an atomic load, with no scheduling point: it hangs until atomics are scheduling points (issue 31 item 7, not done)",
		},
		noParallel: true,
	},
	{
		pkg:   "time",
		files: []string{"sleep_test.go", "tick_test.go"},
		skip: map[string]string{
			"abs_test.go":              "in-package (package time)",
			"export_test.go":           "in-package (package time)",
			"export_android_test.go":   "in-package, android",
			"export_windows_test.go":   "in-package, windows",
			"internal_test.go":         "in-package (package time)",
			"example_test.go":          "examples, no TestX",
			"format_test.go":           "formatting and parsing: no clock, no timer (nothing the plain-Go mode changes); not run yet",
			"time_test.go":             "arithmetic and formatting of Time values; uses export_test.go; not run yet",
			"mono_test.go":             "uses export_test.go (GetMono, SetMono)",
			"linkname_test.go":         "pulls time.now and runtime symbols through linknames",
			"tzdata_test.go":           "time zone data: nothing the plain-Go mode changes",
			"zoneinfo_test.go":         "time zone data: nothing the plain-Go mode changes",
			"zoneinfo_unix_test.go":    "time zone data",
			"zoneinfo_windows_test.go": "windows",
			"zoneinfo_android_test.go": "android",
		},
		drop: map[string]string{
			"TestSleep":                      reasonExport + " (Interrupt)",
			"TestOverflowPeriodRuntimeTimer": reasonExport,
			"TestTimerModifiedEarlier":       "uses internal/testenv",
			"TestTimerGC":                    reasonExport + " (AsynctimerChan), and counts the collector's work",
			"TestOverflowSleep":              "leaves a goroutine sleeping for ever, which the plain-Go leak check fails (natively it outlives the test)",
			"TestAfterQueuing":               reasonSubtest,
			"TestAfterStop":                  reasonSubtest,
			"TestResetResult":                reasonSubtest,
			"TestZeroTimer":                  reasonSubtest,
			"TestChan":                       reasonSubtest,
			"haveHighResSleep":               "the runtime's variable, pulled through a linkname a module may not pull: declared true (linux) in an added file",
		},
		extra:      "package time_test\n\n// haveHighResSleep is the runtime's value on linux (sleep_test.go reads it through a linkname).\nvar haveHighResSleep = true\n",
		noParallel: true,
		// -short: Go's own guard for the million-iteration loops (testZeroTimer).
		flags: []string{"-short"},
	},
}

// copyGoStdTests writes p's test files, less the dropped declarations, into
// dir as a module of its own.
func copyGoStdTests(t *testing.T, p goStdPackage, dir string) {
	t.Helper()
	src := filepath.Join(runtime.GOROOT(), "src", p.pkg)
	names, _ := filepath.Glob(filepath.Join(src, "*_test.go"))
	listed := map[string]bool{}
	for _, f := range p.files {
		listed[f] = true
	}
	for _, name := range names {
		if base := filepath.Base(name); !listed[base] && p.skip[base] == "" {
			t.Errorf("%s/%s is neither copied nor skipped with a reason: Go's tests of %s changed", p.pkg, base, p.pkg)
		}
	}
	dropped := map[string]bool{}
	for _, f := range p.files {
		fset := gotoken.NewFileSet()
		file, err := parser.ParseFile(fset, filepath.Join(src, f), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		var decls []ast.Decl
		for _, d := range file.Decls {
			if name := declName(d); name != "" && p.drop[name] != "" {
				dropped[name] = true
				continue
			}
			decls = append(decls, d)
		}
		file.Decls = decls
		if p.noParallel {
			removeParallel(file)
		}
		file.Comments = nil // comments of dropped declarations would land elsewhere
		for _, imp := range append([]*ast.ImportSpec(nil), file.Imports...) {
			path, _ := strconv.Unquote(imp.Path.Value)
			name := ""
			if imp.Name != nil {
				name = imp.Name.Name
			}
			if name != "." && name != "_" && !astutil.UsesImport(file, path) {
				astutil.DeleteNamedImport(fset, file, name, path)
			}
		}
		var b bytes.Buffer
		if err := format.Node(&b, fset, file); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name := range p.drop {
		if !dropped[name] {
			t.Errorf("%s: %s is listed as dropped but no copied file declares it: Go's tests of %s changed", p.pkg, name, p.pkg)
		}
	}
	pkgName := filepath.Base(p.pkg)
	files := map[string]string{
		"go.mod": "module example.com/gostd/" + pkgName + "\n\ngo 1.26\n",
		"doc.go": "// Package " + pkgName + " runs copies of Go's own tests of " + p.pkg + ".\npackage " + pkgName + "\n",
	}
	if p.extra != "" {
		files["extra_test.go"] = p.extra
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// declName returns the name of a function, or of the single name a var or
// type declaration declares; "" otherwise.
func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			return d.Name.Name
		}
	case *ast.GenDecl:
		if len(d.Specs) == 1 {
			switch s := d.Specs[0].(type) {
			case *ast.ValueSpec:
				if len(s.Names) == 1 {
					return s.Names[0].Name
				}
			case *ast.TypeSpec:
				return s.Name.Name
			}
		}
	}
	return ""
}

// removeParallel deletes every statement t.Parallel() (any receiver).
func removeParallel(file *ast.File) {
	astutil.Apply(file, func(c *astutil.Cursor) bool {
		if es, ok := c.Node().(*ast.ExprStmt); ok {
			if call, ok := es.X.(*ast.CallExpr); ok && len(call.Args) == 0 {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" {
					if _, ok := c.Parent().(*ast.BlockStmt); ok {
						c.Delete()
					}
				}
			}
		}
		return true
	}, nil)
}

// TestGoStdTests runs Go's own tests of sync, context and time's timers (the installed
// Go's, less the declarations listed in goStdPackages with their reasons)
// under `simrt test` on seeds 0..3: every test left must pass on every
// seed. It takes minutes (about 100 s warm, 5 min with a cold overlaid
// standard library on a loaded 2-core machine), more than the CI's
// package timeout leaves, so it runs only when SIMRT_GOSTD=1:
//
//	cd cmd/simrt && SIMRT_GOSTD=1 go test -run TestGoStdTests -v -timeout 30m .
func TestGoStdTests(t *testing.T) {
	if os.Getenv("SIMRT_GOSTD") != "1" {
		t.Skip("Go's own sync, context and time tests under plain Go take minutes: set SIMRT_GOSTD=1")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SIMRT_ROOT", root)
	for _, p := range goStdPackages {
		t.Run(strings.ReplaceAll(p.pkg, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			copyGoStdTests(t, p, dir)
			t.Chdir(dir)
			var out, errOut bytes.Buffer
			args := append([]string{"-simrt.seeds=0..3", "-v", "-count=1", "-timeout=300s"}, p.flags...)
			code := runPlainTest(append(args, "."), &out, &errOut)
			if code != 0 {
				t.Fatalf("simrt test of Go's %s tests exited %d:\n%s\n%s", p.pkg, code, tail(out.String(), 60), errOut.String())
			}
			var passed []string
			for _, line := range strings.Split(out.String(), "\n") {
				if rest, ok := strings.CutPrefix(line, "--- PASS: "); ok && !strings.Contains(rest, "/") {
					passed = append(passed, strings.Fields(rest)[0])
				}
			}
			sort.Strings(passed)
			if len(passed) == 0 {
				t.Fatalf("no test of %s passed:\n%s", p.pkg, tail(out.String(), 40))
			}
			t.Logf("Go's %s tests passing under plain-Go mode on seeds 0..3 (%d): %s", p.pkg, len(passed), strings.Join(passed, " "))
		})
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
