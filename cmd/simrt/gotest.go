package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
		return "", fmt.Errorf("go list %s: %v%s", pkg, err, stderrOf(err))
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
		return "", fmt.Errorf("go test -c %s built no test binary (no test files?)", pkg)
	}
	return bin, nil
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return "\n" + strings.TrimSpace(string(ee.Stderr))
	}
	return ""
}

// parseArgs parses fs from args with the package argument either first
// (simrt sweep ./pkg -run TestX) or after the flags (simrt sweep -run TestX
// ./pkg). What follows "--" goes to the test binary unchanged.
func parseArgs(fs *flag.FlagSet, args []string) (pkg string, passthrough []string, err error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		pkg, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", nil, err
	}
	rest := fs.Args()
	if pkg == "" && len(rest) > 0 && rest[0] != "--" {
		pkg, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if pkg == "" {
		return "", nil, fmt.Errorf("name the package to test, such as ./raft")
	}
	return pkg, rest, nil
}
