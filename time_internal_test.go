package simrt

import (
	"testing"
	"time"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// manualRuntime keeps the timers it is asked for; the test fires them.
type manualRuntime struct{ timers []*manualTimer }

func (r *manualRuntime) CurrentTask() *core.Task { return nil }

// SpawnTask is not used by these tests.
func (r *manualRuntime) SpawnTask(rtapi.Task) rtapi.Aborter { panic("manualRuntime: SpawnTask") }

func (r *manualRuntime) AfterFunc(_ time.Duration, f func()) rtapi.Timer {
	tm := &manualTimer{f: f}
	r.timers = append(r.timers, tm)
	return tm
}

type manualTimer struct {
	f       func()
	stopped bool
}

func (tm *manualTimer) Stop() bool {
	was := !tm.stopped
	tm.stopped = true
	return was
}

// countingBackend counts the wakeups its task receives.
type countingBackend struct{ unparks int }

func (b *countingBackend) Park()   {}
func (b *countingBackend) Unpark() { b.unparks++ }
func (b *countingBackend) Yield()  {}

// A Select re-arms its cases on every wakeup, possibly from another task
// each time; an After case must still own exactly one timer, set the first
// time it is armed, and when that timer fires it must wake only the waiter
// armed last, once, and then be complete (the Go form of the reference's
// one-alarm-after-repolling rule: polls alternate between two wakers, and
// only the latest is notified).
func TestSleepRefreshesOneAlarmAfterRepolling(t *testing.T) {
	rt := &manualRuntime{}
	c := After(rt, 10*time.Millisecond, nil)
	first, latest := &countingBackend{}, &countingBackend{}
	tasks := map[*countingBackend]*core.Task{first: core.NewTask(first), latest: core.NewTask(latest)}
	w := &c.(*primCase[afterState, func()]).w // the case's own waiter, re-armed by each poller
	for i := range 100 {
		b := first
		if i%2 == 1 {
			b = latest
		}
		if c.arm(tasks[b], nil) {
			t.Fatalf("re-arm %d: the case completed before its timer fired", i)
		}
		if i < 99 {
			c.disarm() // that poller woke for another case and moved on
		} // else the latest poller is still waiting
	}
	if len(rt.timers) != 1 {
		t.Fatalf("%d timers set over 100 re-arms, want 1", len(rt.timers))
	}
	if first.unparks != 0 || latest.unparks != 0 {
		t.Fatalf("woken before the timer fired: first %d, latest %d", first.unparks, latest.unparks)
	}

	rt.timers[0].f() // the deadline passes
	if first.unparks != 0 || latest.unparks != 1 || !w.Notified {
		t.Errorf("after the timer: first poller woken %d times, latest %d (notified %v); want 0 and 1 (true)",
			first.unparks, latest.unparks, w.Notified)
	}
	c.disarm()
	if !c.arm(tasks[latest], nil) {
		t.Error("the case is not complete after its timer fired")
	}
	c.release()
	if len(rt.timers) != 1 || !rt.timers[0].stopped {
		t.Errorf("release: %d timers, first stopped %v; want 1, true", len(rt.timers), rt.timers[0].stopped)
	}
}
