package core

import "testing"

// TestRecycleIsResetAndArm: a waiter recycled after a wait a partner
// completed (claimed, queued elsewhere, notified, Done) is an unqueued,
// undone waiter of the new task with its selection armed, as Reset and
// Arm make it, and a partner can claim it again once it waits.
func TestRecycleIsResetAndArm(t *testing.T) {
	var q WaitQueue
	var sel Selection
	var w Waiter
	old, next := new(Task), new(Task)
	w.Reset(old, &sel)
	sel.Wait()
	q.Push(&w)
	if q.Claim(nil) != &w {
		t.Fatal("the waiting waiter was not claimed")
	}
	w.Done.Store(true)
	w.Notified = true
	w.blocker = nopBlocker{}
	q.Push(&w) // left queued, to see Recycle forget the queue
	q.Remove(&w)

	w.Recycle(next, &sel)
	if w.Task != next || w.Sel != &sel || w.Notified || w.Done.Load() || w.q != nil || w.prev != nil || w.next != nil || w.blocker != nil {
		t.Fatalf("recycled waiter = %+v, want an unqueued, undone waiter of the new task", &w)
	}
	if st := sel.state.Load(); st != selArming {
		t.Fatalf("recycled selection state = %d, want arming (%d)", st, selArming)
	}
	sel.Wait()
	q.Push(&w)
	if q.Claim(nil) != &w {
		t.Fatal("the recycled waiter could not be claimed again")
	}
}

type nopBlocker struct{}

func (nopBlocker) BlockedOn() string { return "nothing" }
