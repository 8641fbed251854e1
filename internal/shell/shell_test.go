package shell

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/storage/memory"
	"github.com/simrt/simrt/telemetry/audit"
)

func newRuntime() *Runtime {
	r := &Runtime{}
	r.Init("test", nil, nil, func(*supervise.Node) {})
	return r
}

// The table from a task's end to its handle's result, and the failure
// record: the first uncaught panic wins.
func TestResult(t *testing.T) {
	r := newRuntime()
	p1, p2 := &core.Panic{Value: "one"}, &core.Panic{Value: "two"}
	var pe *simrt.PanicError
	for _, c := range []struct {
		name  string
		end   End
		check func(error) bool
		first bool
	}{
		{"ok", End{Outcome: core.OutcomeOK}, func(err error) bool { return err == nil }, false},
		{"aborted", End{Outcome: core.OutcomeAborted}, isClosed, false},
		{"goexit", End{Outcome: core.OutcomeNone}, isClosed, false},
		{"caught", End{Outcome: core.OutcomePanicked, Panic: p1, Catch: true}, func(err error) bool {
			return errors.As(err, &pe) && pe.Value == "one"
		}, false},
		{"closing", End{Outcome: core.OutcomePanicked, Panic: p1}, isClosed, false},
		{"uncaught", End{Task: "a", Outcome: core.OutcomePanicked, Panic: p1}, isClosed, true},
		{"second uncaught", End{Task: "b", Outcome: core.OutcomePanicked, Panic: p2}, isClosed, false},
		{"root caught", End{Task: "c", Outcome: core.OutcomePanicked, Panic: p2, Root: true, Catch: true}, isClosed, false},
	} {
		if c.name == "closing" {
			c.end.Closing = true
		}
		err, first := r.Result(c.end)
		if !c.check(err) || first != c.first {
			t.Errorf("%s: Result = %v, %v", c.name, err, first)
		}
	}
	if f := r.Failure(); f == nil || f.Task != "a" || f.Value != "one" {
		t.Fatalf("Failure = %+v, want task a's panic", f)
	}
}

func isClosed(err error) bool { return errors.Is(err, simrt.ErrClosed) }

// Check panics once the runtime has finished, naming the runtime.
func TestCheckAfterFinish(t *testing.T) {
	r := newRuntime()
	r.Check()
	r.Finish()
	defer func() {
		if v := fmt.Sprint(recover()); !strings.HasPrefix(v, "test: context used after its runtime finished") {
			t.Fatalf("panic %q", v)
		}
	}()
	r.Check()
}

type recorder struct{ labels []string }

func (r *recorder) Event(label audit.Label, _ ...[]byte) { r.labels = append(r.labels, string(label)) }

// The storage stack puts the outer layer outside metered outside audited
// outside the device, and leaves the audit out without a recorder.
func TestStorageStackOrder(t *testing.T) {
	var order []string
	outer := func(s simrt.Storage) simrt.Storage {
		order = append(order, fmt.Sprintf("%T", s))
		return s
	}
	rec := &recorder{}
	s := StorageStack(memory.New(), rec, prometheus.NewRegistry(), outer)
	if _, _, err := s.Open("p", []byte("b")); err != nil {
		t.Fatal(err)
	}
	if len(order) != 1 || order[0] != "*metered.Storage" {
		t.Errorf("outer wraps %v, want *metered.Storage", order)
	}
	if len(rec.labels) == 0 {
		t.Error("the audited layer recorded nothing")
	}
	order = nil
	StorageStack(memory.New(), nil, prometheus.NewRegistry(), outer)
	if len(order) != 1 || order[0] != "*metered.Storage" {
		t.Errorf("without a recorder, outer wraps %v", order)
	}
}
