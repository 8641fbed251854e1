package supervise

import (
	"fmt"
	"strings"
	"testing"
)

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), want) {
			t.Fatalf("panic %v, want one containing %q", r, want)
		}
	}()
	f()
}

func TestLabelRules(t *testing.T) {
	mustPanic(t, "label must start with [a-zA-Z]", func() { ValidateLabel("") })
	mustPanic(t, "label must start with [a-zA-Z]", func() { ValidateLabel("1x") })
	mustPanic(t, "label must only contain [a-zA-Z0-9_]", func() { ValidateLabel("a-b") })
	mustPanic(t, "using runtime label is not allowed", func() { ChildName("", "runtime_x") })
	if got := ChildName("foo", "runtime"); got != "foo_runtime" {
		t.Fatalf("ChildName = %q", got)
	}
	if got := ChildName("", "a"); got != "a" {
		t.Fatalf("ChildName at the root = %q", got)
	}
}

func TestWithAttrSortsAndReplaces(t *testing.T) {
	a := WithAttr(nil, "region", "us")
	a = WithAttr(a, "env", "prod")
	b := WithAttr(a, "region", "eu")
	if fmt.Sprint(a) != "[{env prod} {region us}]" || fmt.Sprint(b) != "[{env prod} {region eu}]" {
		t.Fatalf("a %v, b %v", a, b)
	}
	mustPanic(t, "label must start with [a-zA-Z]", func() { WithAttr(nil, "_k", "v") })
}
