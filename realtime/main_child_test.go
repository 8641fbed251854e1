package realtime_test

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runMain runs the test binary as the program of main case c (see
// mainCases) and returns its exit status and standard error.
func runMain(t *testing.T, c string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), mainCaseEnv+"="+c), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode(), stderr.String()
	}
	t.Fatalf("main case %q: %v\n%s", c, err, stderr.String())
	return 0, ""
}

func TestMainExitStatus(t *testing.T) {
	for _, c := range []struct {
		name, why string
		want      int
	}{
		{"return", "the root returned nil and nobody stopped", 0},
		{"stop", "the root called ctx.Stop(7, ...)", 7},
		{"sigterm", "StopOnSignal stops with 128+SIGTERM", 143},
		{"fail", "the root returned an error", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, stderr := runMain(t, c.name)
			if got != c.want {
				t.Errorf("exit status %d, want %d (%s)\nstderr:\n%s", got, c.want, c.why, stderr)
			}
			if c.name == "fail" && !strings.Contains(stderr, "root gave up") {
				t.Errorf("the root's error is not logged:\n%s", stderr)
			}
		})
	}
}

// TestMainReportsBusyMetricsPort: a metrics address in use is a setup
// error, logged with the address and the operating system's error, and
// the process exits with status 1, without a panic and without running
// the root.
func TestMainReportsBusyMetricsPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	got, stderr := runMain(t, "metrics", mainAddrEnv+"="+addr)
	if got != 1 {
		t.Errorf("exit status %d, want 1\nstderr:\n%s", got, stderr)
	}
	for _, want := range []string{addr, "address already in use"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the setup error does not say %q:\n%s", want, stderr)
		}
	}
	for _, bad := range []string{"panic", "goroutine ", "root ran"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("stderr shows %q:\n%s", bad, stderr)
		}
	}
}

// TestMainReportsBindError is the documented main on a busy port: the
// root returns Bind's error, which Main logs with the address and the
// operating system's error, and the process exits with status 1 (it
// exited 0 when main only logged "bind failed").
func TestMainReportsBindError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	got, stderr := runMain(t, "bind", mainAddrEnv+"="+addr)
	if got != 1 {
		t.Errorf("exit status %d, want 1\nstderr:\n%s", got, stderr)
	}
	for _, want := range []string{"bind failed", addr, "address already in use"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the logged error does not say %q:\n%s", want, stderr)
		}
	}
}
