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
