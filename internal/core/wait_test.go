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

// TestClaimTakesPlainWaiters: the waiter of a plain wait (no selection) is
// claimed by whoever reaches it first under the lock, whatever selection
// the claimer has (a plain Send's nil or a Select's own), in queue order,
// with no selection to move; a Select's waiter behind it is claimed only
// once it waits, and a claimer's own waiters are passed by.
func TestClaimTakesPlainWaiters(t *testing.T) {
	var q WaitQueue
	var plain1, plain2, ofSel, ofOwn Waiter
	var sel, own Selection
	plain1.Reset(new(Task), nil)
	plain2.Reset(new(Task), nil)
	ofSel.Reset(new(Task), &sel)
	ofOwn.Reset(new(Task), &own)
	sel.Wait()
	own.Wait()
	q.Push(&ofOwn)
	q.Push(&plain1)
	q.Push(&plain2)
	q.Push(&ofSel)
	if got := q.Claim(&own); got != &plain1 {
		t.Fatalf("Claim(own) = %p, want the first plain waiter %p", got, &plain1)
	}
	if got := q.Claim(nil); got != &ofOwn {
		t.Fatalf("Claim(nil) = %p, want the Select's waiter at the head %p", got, &ofOwn)
	}
	if got := q.Claim(nil); got != &plain2 {
		t.Fatalf("Claim(nil) = %p, want the second plain waiter %p", got, &plain2)
	}
	if plain1.q != nil || plain2.q != nil || plain1.Sel != nil {
		t.Fatal("a claimed plain waiter is still queued or has a selection")
	}
	if got := q.Claim(&sel); got != nil {
		t.Fatalf("Claim(sel) = %p, want nil (only sel's own waiter is left)", got)
	}
	if got := q.Claim(nil); got != &ofSel {
		t.Fatalf("Claim(nil) = %p, want the last Select waiter %p", got, &ofSel)
	}
	if !q.Empty() {
		t.Fatal("queue not empty after every waiter was claimed")
	}
}

// TestPushFront: a waiter pushed at the front is the first popped, on an
// empty queue as on one with waiters, and removing waiters afterwards
// keeps the links of both ends right.
func TestPushFront(t *testing.T) {
	var q WaitQueue
	var a, b, c Waiter
	q.PushFront(&a)
	q.Push(&b)
	q.PushFront(&c)
	var got []*Waiter
	for w := q.head; w != nil; w = w.next {
		got = append(got, w)
	}
	if len(got) != 3 || got[0] != &c || got[1] != &a || got[2] != &b || q.tail != &b {
		t.Fatalf("queue order wrong: %v", got)
	}
	q.Remove(&c)
	q.Remove(&b)
	if q.head != &a || q.tail != &a || a.prev != nil || a.next != nil {
		t.Fatal("links wrong after removing both ends")
	}
	q.Remove(&a)
	if !q.Empty() || q.tail != nil {
		t.Fatal("queue not empty")
	}
}
