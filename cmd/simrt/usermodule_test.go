package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The tests below try the CLI as a user does: the simrt binary, built
// here, runs in a module of its own outside this repository, which
// depends on simrt through a replace directive.

// userModule writes a module with a simtest test (./store, failing on the
// seeds where task "c" wins) and a package whose tests do not use simtest
// (./plain), and returns its directory and the simrt binary.
func userModule(t *testing.T) (dir, simrt string) {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "simrt")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir = t.TempDir()
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/user\n\ngo 1.26.0\n\nrequire github.com/simrt/simrt v0.0.0\n\nreplace github.com/simrt/simrt => " + repo + "\n",
		"go.sum": string(sum),
		"store/store_test.go": `package store

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

func TestStore(t *testing.T) {
	simtest.Explore(t, deterministic.Config{Timeout: time.Minute}, func(t *testing.T, ctx *deterministic.Context) {
		winner := simrt.NewChan[string](3)
		for _, name := range []string{"a", "b", "c"} {
			simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) int {
				ctx.Sleep(time.Duration(ctx.Rand().IntN(20)) * time.Millisecond)
				winner.Send(ctx, name)
				return 0
			})
		}
		if w, _ := winner.Recv(ctx); w == "c" {
			t.Errorf("c became leader\nwant a or b")
		}
	})
}
`,
		"plain/plain_test.go": "package plain\n\nimport \"testing\"\n\nfunc TestPlain(t *testing.T) {}\n",
		"escapes/escapes.go": `package escapes

import (
	"time"

	"github.com/simrt/simrt"
)

// Tick escapes the simulator twice.
func Tick(ctx simrt.Context) time.Time {
	go func() {}()
	return time.Now()
}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	return dir, bin
}

// simrtIn runs the simrt binary in dir and returns its stdout, stderr and
// exit code.
func simrtIn(t *testing.T, dir, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestCLIFromUserModule(t *testing.T) {
	dir, bin := userModule(t)

	// A sweep as JSON: the failures, each headed by its first error line,
	// with a replay command that works from here.
	out, errs, code := simrtIn(t, dir, bin, "sweep", "./store", "-run", "TestStore", "-seeds", "0..29", "-json")
	if code != 1 {
		t.Fatalf("sweep: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	var r sweepReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("sweep -json: %v\n%s", err, out)
	}
	if r.Seeds != 30 || r.SeedsDone != 30 || r.Failed == 0 || r.Failed == 30 || len(r.Failures) != r.Failed || r.Interrupted {
		t.Fatalf("sweep report %+v", r)
	}
	f := r.Failures[0]
	if f.Headline != "store_test.go:23: c became leader" {
		t.Errorf("headline %q, want the first line of the t.Errorf", f.Headline)
	}
	if !strings.Contains(errs, "FAIL seed ") || strings.Contains(errs, "seeds/s") {
		t.Errorf("stderr has no failure lines, or a progress bar although it is not a terminal:\n%s", errs)
	}

	// The replay command it printed, run as printed.
	args := strings.Fields(f.Replay)
	if args[0] != "simrt" || args[1] != "replay" {
		t.Fatalf("replay command %q", f.Replay)
	}
	trace := filepath.Join(t.TempDir(), "trace.json")
	out, errs, code = simrtIn(t, dir, bin, append(args[1:], "-trace", trace)...)
	if code != 1 || !strings.Contains(out, "c became leader") || !strings.Contains(out, "simrt: seed ") {
		t.Errorf("replay: exit %d, want 1 and the failure\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := os.Stat(trace); err != nil {
		t.Errorf("replay wrote no trace: %v", err)
	}

	t.Run("Interrupt", func(t *testing.T) { interruptPrintsPartialSummary(t, dir, bin) })

	// simrt vet: the escapes are reported, with exit code 1; the clean
	// packages pass.
	out, errs, code = simrtIn(t, dir, bin, "vet", "./...")
	for _, want := range []string{"escapes.go:11:2: go statement", "escapes.go:12:9: time.Now reads the wall clock; use ctx.Now()"} {
		if !strings.Contains(errs, want) {
			t.Errorf("simrt vet: stderr lacks %q:\n%s", want, errs)
		}
	}
	if code != 1 || strings.Contains(errs, "store_test.go") {
		t.Errorf("simrt vet: exit %d, want 1 and nothing on ./store:\n%s%s", code, out, errs)
	}
	if _, errs, code := simrtIn(t, dir, bin, "vet", "./store", "./plain"); code != 0 {
		t.Errorf("simrt vet on clean packages: exit %d:\n%s", code, errs)
	}

	// A package whose tests do not use simtest: one line, exit 2.
	out, errs, code = simrtIn(t, dir, bin, "sweep", "./plain", "-run", "TestPlain")
	if code != 2 || out != "" || strings.Count(errs, "\n") != 2 || !strings.Contains(errs, "./plain does not use simtest") {
		t.Errorf("sweep ./plain: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// interruptPrintsPartialSummary interrupts a long sweep as Ctrl-C does:
// it stops and says how far it got and what failed so far.
func interruptPrintsPartialSummary(t *testing.T, dir, bin string) {
	cmd := exec.Command(bin, "sweep", "./store", "-run", "TestStore", "-seeds", "0..999999", "-parallel", "1")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "FAIL seed ") {
			break // a failure so far: now interrupt
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\nstdout:\n%s\nstderr:\n%s", err, exitInterrupted, out.String(), errb.String())
	}
	text := out.String()
	if !strings.Contains(text, "interrupted: swept ") || !strings.Contains(text, " of 1000000 seeds") ||
		!strings.Contains(text, "failed so far") || !strings.Contains(text, "failing seeds: ") {
		t.Errorf("no partial summary:\n%s", text)
	}
}
