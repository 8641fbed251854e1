package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinary builds simrtvet and runs it on a module of its own outside
// this repository, which imports a stand-in simrt module: standalone, with
// -fix, and as go vet's -vettool.
func TestBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "simrtvet")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := t.TempDir()
	src := `package app

import (
	"time"

	"github.com/simrt/simrt"
)

// Since escapes the simulator's clock.
func Since(ctx simrt.Context, start time.Time) time.Duration {
	return time.Since(start)
}
`
	for name, text := range map[string]string{
		"simrt/go.mod":   "module github.com/simrt/simrt\n\ngo 1.26.0\n",
		"simrt/simrt.go": "package simrt\n\nimport \"time\"\n\n// Context is a stand-in.\ntype Context interface{ Now() time.Time }\n",
		"app/go.mod":     "module example.com/app\n\ngo 1.26.0\n\nrequire github.com/simrt/simrt v0.0.0\n\nreplace github.com/simrt/simrt => ../simrt\n",
		"app/app.go":     src,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	app := filepath.Join(root, "app")
	run := func(name string, args ...string) (string, int) {
		cmd := exec.Command(name, args...)
		cmd.Dir = app
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	const want = "app.go:11:9: time.Since reads the wall clock; use ctx.Now().Sub(t)"
	if out, code := run("go", "vet", "-vettool="+bin, "./..."); code != 1 || !strings.Contains(out, want) {
		t.Errorf("go vet -vettool: exit %d, want 1 and %q:\n%s", code, want, out)
	}
	if out, code := run(bin, "./..."); code == 0 || !strings.Contains(out, want) {
		t.Errorf("simrtvet: exit %d, want non-zero and %q:\n%s", code, want, out)
	}
	if out, code := run(bin, "-fix", "./..."); code != 0 && !strings.Contains(out, want) {
		t.Errorf("simrtvet -fix: exit %d:\n%s", code, out)
	}
	fixed, err := os.ReadFile(filepath.Join(app, "app.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fixed), "return ctx.Now().Sub(start)") {
		t.Errorf("simrtvet -fix did not rewrite time.Since:\n%s", fixed)
	}
	if out, code := run(bin, "./..."); code != 0 {
		t.Errorf("simrtvet after -fix: exit %d:\n%s", code, out)
	}
}
