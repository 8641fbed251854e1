package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestDemoSameSeedSameBytes(t *testing.T) {
	var a, b, c bytes.Buffer
	if code := dispatch([]string{"demo", "-seed", "7"}, &a, &a); code != 0 {
		t.Fatalf("exit %d: %s", code, a.String())
	}
	dispatch([]string{"demo", "-seed", "7"}, &b, &b)
	dispatch([]string{"demo", "-seed", "8"}, &c, &c)
	if a.String() != b.String() {
		t.Fatalf("same seed, different output:\n%s\n---\n%s", a.String(), b.String())
	}
	if a.String() == c.String() {
		t.Fatal("different seeds, same output")
	}
	out := a.String()
	for _, want := range []string{"root: token came home", "shutting down", "audit state"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	var out bytes.Buffer
	if code := dispatch([]string{"nope"}, &out, &out); code != 2 || !strings.Contains(out.String(), "unknown command") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

// TestDemoRefusesBadRounds checks that a ring that never finishes (no
// rounds, or a negative number) and stray arguments are refused with exit
// code 2 and one line, instead of running into the simulated-time limit.
func TestDemoRefusesBadRounds(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "-rounds", "0"}, "-rounds 0: the token goes round 1 to 1000 times"},
		{[]string{"demo", "-rounds", "-2"}, "-rounds -2:"},
		{[]string{"demo", "-rounds", "1000000"}, "-rounds 1000000:"},
		{[]string{"demo", "7"}, `unexpected argument "7"`},
	} {
		var out, errb bytes.Buffer
		code := dispatch(c.args, &out, &errb)
		if code != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errb.String(), c.want)
		}
		if out.Len() > 0 {
			t.Errorf("%v: the demo ran: %q", c.args, out.String())
		}
	}
	var out bytes.Buffer
	if code := dispatch([]string{"demo", "-rounds", "1"}, &out, &out); code != 0 || !strings.Contains(out.String(), "token came home") {
		t.Errorf("-rounds 1: exit %d:\n%s", code, out.String())
	}
}

// TestVetToolProtocol checks when the simrt binary acts as go vet's tool:
// for go vet's questions and .cfg files, never for a subcommand.
func TestVetToolProtocol(t *testing.T) {
	t.Setenv(vetToolEnv, "")
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-V=full"}, true},
		{[]string{"-flags"}, true},
		{[]string{"-json", "/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"sweep", "./p", "-run", "X", "--", "conf.cfg"}, false},
		{[]string{"demo"}, false},
		{nil, false},
	} {
		if got := isVetTool(c.args); got != c.want {
			t.Errorf("isVetTool(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
