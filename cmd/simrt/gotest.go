package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// testPattern anchors a plain test name (TestX becomes ^TestX$, so that
// TestX does not also run TestXY); anything else is a regular expression
// and passes through.
func testPattern(run string) string {
	if regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(run) {
		return "^" + run + "$"
	}
	return run
}

// packageDir returns the directory of the package pattern pkg (such as
// ./raft), where go test runs its test binary.
func packageDir(pkg string) (string, error) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkg).Output()
	if err != nil {
		return "", fmt.Errorf("go list %s: %s", pkg, firstLine(err))
	}
	dirs := strings.Fields(string(out))
	if len(dirs) != 1 {
		return "", fmt.Errorf("%s names %d packages; name exactly one", pkg, len(dirs))
	}
	return dirs[0], nil
}

// buildTest compiles the test binary of pkg into dir and returns its path.
func buildTest(pkg, dir string) (string, error) {
	bin := filepath.Join(dir, "simrt-sweep.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, pkg)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go test -c %s: %v\n%s", pkg, err, stderr.String())
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%s has no test files: sweep and replay run a test that calls simtest.Explore", pkg)
	}
	return bin, nil
}

// usesSimtest reports whether the tests of pkg import simtest, from go
// list (nothing is built).
func usesSimtest(pkg string) (bool, error) {
	out, err := exec.Command("go", "list", "-test", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
	if err != nil {
		return false, fmt.Errorf("go list %s: %s", pkg, firstLine(err))
	}
	for l := range strings.Lines(string(out)) {
		if strings.TrimSpace(l) == "github.com/simrt/simrt/simtest" {
			return true, nil
		}
	}
	return false, nil
}

// checkSweepable asks the test binary, run in dir, which of its tests
// match pattern and whether it knows simtest's flags: a package without
// the test, or without simtest, is one clear error instead of a usage dump
// from every test process.
func checkSweepable(bin, dir, pkg, pattern, runFlag string) error {
	top, _, _ := strings.Cut(pattern, "/") // -test.list matches top-level tests only
	cmd := exec.Command(bin, "-test.list="+top, "-simrt.seeds=0")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	text := string(out)
	if strings.Contains(text, "flag provided but not defined: -simrt.") {
		return fmt.Errorf("%s does not use simtest (its tests have no -simrt.seeds flag): sweep runs a test that calls simtest.Explore", pkg)
	}
	if err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		return fmt.Errorf("listing the tests of %s: %v: %s", pkg, err, first)
	}
	var names, fuzz []string
	for l := range strings.Lines(text) {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Test") {
			names = append(names, l)
		} else if strings.HasPrefix(l, "Fuzz") {
			fuzz = append(fuzz, l)
		}
	}
	if len(names) == 0 && len(fuzz) > 0 {
		return fmt.Errorf("%s in %s is a fuzz target, not a test: sweep runs a test that calls simtest.Explore; fuzz it with go test -run '^$' -fuzz '^%s$' %s",
			fuzz[0], pkg, fuzz[0], pkg)
	}
	if len(names) == 0 {
		return fmt.Errorf("no test in %s matches -run %s", pkg, runFlag)
	}
	return nil
}

// forwardedFlag returns the first of the simtest flags names (such as
// "seed" for -simrt.seed) that the flags forwarded after "--" give, or ""
// when they give none: simrt sets those itself, and a forwarded one would
// silently win over it.
func forwardedFlag(extra []string, names ...string) string {
	for _, a := range extra {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !strings.HasPrefix(name, "simrt.") {
			continue
		}
		if slices.Contains(names, strings.TrimPrefix(name, "simrt.")) {
			return "-" + name
		}
	}
	return ""
}

// listTests returns the top-level tests of pkg that match pattern, from
// go test -list (which builds the test binary that go test then reuses).
func listTests(pkg, pattern string) ([]string, error) {
	top, _, _ := strings.Cut(pattern, "/") // -test.list matches top-level tests only
	out, err := exec.Command("go", "test", "-count=1", "-list="+top, pkg).Output()
	if err != nil {
		return nil, fmt.Errorf("go test -list %s: %s", pkg, firstLine(err))
	}
	var names []string
	for l := range strings.Lines(string(out)) {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Test") {
			names = append(names, l)
		}
	}
	return names, nil
}

// firstLine is the first line that a failed command wrote to stderr, or
// the error itself when it wrote nothing.
func firstLine(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		first, _, _ := strings.Cut(strings.TrimSpace(string(ee.Stderr)), "\n")
		return first
	}
	return err.Error()
}

// parseArgs parses fs from args with the package argument either first
// (simrt sweep ./pkg -run TestX) or after the flags (simrt sweep -run TestX
// ./pkg). What follows "--" goes to the test binary unchanged.
func parseArgs(fs *flag.FlagSet, args []string) (pkg string, passthrough []string, err error) {
	if i := slices.Index(args, "--"); i >= 0 {
		args, passthrough = args[:i], args[i+1:]
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		pkg, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", nil, err
	}
	rest := fs.Args()
	if pkg == "" && len(rest) > 0 {
		pkg = rest[0]
		if err := fs.Parse(rest[1:]); err != nil { // flags may follow the package too
			return "", nil, err
		}
		rest = fs.Args()
	}
	if len(rest) > 0 {
		return "", nil, fmt.Errorf("unexpected argument %q after the package %s: name one package; flags for the test binary go after --", rest[0], pkg)
	}
	if pkg == "" {
		return "", nil, fmt.Errorf("name the package to test, such as ./raft")
	}
	return pkg, passthrough, nil
}
