package metrics

import (
	"strings"
	"testing"
)

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r, _ := recover().(string)
		if !strings.Contains(r, want) {
			t.Fatalf("panic %q, want one containing %q", r, want)
		}
	}()
	f()
}

func TestDuplicateRegistrationReusesTheCollector(t *testing.T) {
	r := New()
	a := r.Counter("a_test", "help", nil)
	b := r.Counter("a_test", "help", nil)
	a.Inc()
	b.Add(2)
	if !strings.Contains(r.Encode(), "a_test_total 3") {
		t.Fatalf("got\n%s", r.Encode())
	}
}

func TestDifferentTypePanics(t *testing.T) {
	r := New()
	r.Counter("x", "help", nil)
	mustPanic(t, "registered with different type", func() { r.Gauge("x", "help", nil) })
}

func TestInconsistentHelpPanics(t *testing.T) {
	r := New()
	r.Counter("x", "help", []Attr{{"epoch", "1"}})
	mustPanic(t, "inconsistent help text", func() { r.Counter("x", "other", []Attr{{"epoch", "2"}}) })
}

func TestSharedFamilyHeaderAndSortedEncoding(t *testing.T) {
	r := New()
	r.Counter("votes", "Votes", []Attr{{"epoch", "e6"}}).Add(2)
	r.Counter("votes", "Votes", []Attr{{"epoch", "e5"}}).Inc()
	r.Gauge("a_gauge", "A gauge", nil).Set(-3)
	out := r.Encode()
	if strings.Count(out, "# TYPE votes counter") != 1 {
		t.Fatalf("one family header expected:\n%s", out)
	}
	ia, i5, i6 := strings.Index(out, "a_gauge"), strings.Index(out, `epoch="e5"`), strings.Index(out, `epoch="e6"`)
	if !(ia < i5 && i5 < i6) {
		t.Fatalf("not sorted:\n%s", out)
	}
	if !strings.HasSuffix(out, "# EOF\n") || strings.Count(out, "# EOF") != 1 {
		t.Fatalf("want a single # EOF at the end:\n%s", out)
	}
	if out != r.Encode() {
		t.Fatal("encoding changed between two calls")
	}
}

func TestTaskMetricsCollector(t *testing.T) {
	r := New()
	tasks := NewTasks(r)
	l := tasks.Label("worker", "Task")
	if tasks.Label("worker", "Task") != l {
		t.Fatal("a label resolves to one series")
	}
	l.Spawned.Add(2)
	l.Running.Add(1)
	out := r.Encode()
	for _, want := range []string{
		`runtime_tasks_spawned_total{execution="Shared",kind="Task",name="worker"} 2`,
		`runtime_tasks_running{execution="Shared",kind="Task",name="worker"} 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
