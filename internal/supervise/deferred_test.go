package supervise

import (
	"sync"
	"testing"
)

// newDeferredTree returns a tree with DeferRelease on.
func newDeferredTree() *Tree {
	tr := newTree()
	tr.DeferRelease()
	return tr
}

// TestQuickFinishLeavesNodeToSweep: a task that spawned nothing ends
// without the lock and stays in its parent's children, uncounted, until a
// spawn below the same parent finds the children full.
func TestQuickFinishLeavesNodeToSweep(t *testing.T) {
	tr := newDeferredTree()
	var tasks [4]fakeTask
	for i := range tasks {
		tr.Root().Spawn(&tasks[i])
	}
	for i := range tasks {
		tasks[i].node.Finish()
	}
	if got := len(tr.Root().children()); got != 4 {
		t.Fatalf("root has %d children after four quick finishes, want 4 left to sweep", got)
	}
	if got := tr.Len(); got != 1 {
		t.Fatalf("Len = %d after every task finished, want 1", got)
	}
	var more [3]fakeTask
	for i := range more {
		tr.Root().Spawn(&more[i])
	}
	if got := len(tr.Root().children()); got != 3 {
		t.Fatalf("root has %d children, want the 3 running (the finished ones swept)", got)
	}
	for i, k := range tr.Root().children() {
		if int(k.idx) != i {
			t.Fatalf("child %d has index %d after the sweep", i, k.idx)
		}
	}
	for i := range tasks {
		if tasks[i].aborted != 0 {
			t.Fatalf("finished task %d was aborted", i)
		}
	}
}

// TestAbortAmongSweptChildren: an abort reaches every running child,
// wherever sweeps and unlinks moved it, and no finished one.
func TestAbortAmongSweptChildren(t *testing.T) {
	tr := newDeferredTree()
	parent := &fakeTask{}
	p := tr.Root().Spawn(parent)
	var running []*fakeTask
	var ended []*fakeTask
	for i := range 1000 {
		k := &fakeTask{}
		p.Spawn(k)
		switch {
		case i%7 == 0:
			running = append(running, k)
		case i%7 == 1: // aborted through its handle: leaves by the slow path
			k.node.Abort()
			k.node.Finish()
		default:
			k.node.Finish()
			ended = append(ended, k)
		}
	}
	p.Abort()
	for i, k := range running {
		if k.aborted != 1 {
			t.Fatalf("running child %d aborted %d times, want 1", i, k.aborted)
		}
	}
	for i, k := range ended {
		if k.aborted != 0 {
			t.Fatalf("finished child %d aborted %d times, want 0", i, k.aborted)
		}
	}
	for _, k := range running {
		k.node.Finish()
	}
	parent.node.Finish()
	if got := tr.Len(); got != 1 {
		t.Fatalf("Len = %d after everything ended, want 1", got)
	}
}

// TestSpawnBelowQuicklyFinishedTask: a task's context outlives the task;
// spawning from it, or from a Child of it, is refused before and after its
// node is swept.
func TestSpawnBelowQuicklyFinishedTask(t *testing.T) {
	tr := newDeferredTree()
	task := &fakeTask{}
	s := tr.Root().Spawn(task)
	c := s.Child()
	s.Finish()
	if s.st.Load()&stDone == 0 {
		t.Fatal("a task that spawned nothing did not finish quickly")
	}
	if s.Spawn(&fakeTask{}) != nil || c.Spawn(&fakeTask{}) != nil {
		t.Fatal("spawn below a finished task was taken")
	}
	if !s.Aborted() || !c.Aborted() {
		t.Fatal("a finished task's node does not report aborted")
	}
	var fill [8]fakeTask // fill the root's children until a sweep drops s
	for i := range fill {
		tr.Root().Spawn(&fill[i])
	}
	if s.idx != -1 {
		t.Fatalf("finished node still at index %d after the sweep", s.idx)
	}
	if s.Spawn(&fakeTask{}) != nil || c.Spawn(&fakeTask{}) != nil {
		t.Fatal("spawn below a swept task was taken")
	}
}

// TestQuickFinishRacesSpawnBelow: a task ending while a spawn below it is
// in flight either refuses the spawn or aborts the child; never neither.
func TestQuickFinishRacesSpawnBelow(t *testing.T) {
	tr := newDeferredTree()
	for range 2000 {
		task := &fakeTask{}
		s := tr.Root().Spawn(task)
		child := &fakeTask{}
		var wg sync.WaitGroup
		var took bool
		wg.Go(func() { took = s.Spawn(child) != nil })
		s.Finish()
		wg.Wait()
		if took && child.aborted != 1 {
			t.Fatal("a child spawned below a task that ended was not aborted")
		}
		if took {
			child.node.Finish()
		}
	}
	if got := tr.Len(); got != 1 {
		t.Fatalf("Len = %d after everything ended, want 1", got)
	}
}
