package supervise

import (
	"testing"
	"unsafe"
)

// fakeTask is a task as a runtime keeps one: its spawn node inside it, so
// that the tree's abortTask finds the task from the node.
type fakeTask struct {
	node    Node // first, so a *Node of a fakeTask converts to it
	aborted int
}

// newTree returns a tree whose spawn nodes are all fakeTasks' nodes.
func newTree() *Tree {
	return New(func(n *Node) { (*fakeTask)(unsafe.Pointer(n)).aborted++ })
}

// Spawn spawns task below n, as a runtime does, and returns its node, or
// nil if n or an ancestor has been aborted.
func (n *Node) Spawn(task *fakeTask) *Node {
	if !n.SpawnAt(&task.node) {
		return nil
	}
	return &task.node
}

func TestAbortCascadesToChildren(t *testing.T) {
	tr := newTree()
	parent := &fakeTask{}
	p := tr.Root().Spawn(parent)
	var kids []*fakeTask
	for range 3 {
		k := &fakeTask{}
		kids = append(kids, k)
		p.Child().Spawn(k)
	}
	p.Abort()
	p.Abort() // twice is fine
	if parent.aborted != 1 {
		t.Fatalf("parent aborted %d times", parent.aborted)
	}
	for i, k := range kids {
		if k.aborted != 1 {
			t.Fatalf("child %d aborted %d times", i, k.aborted)
		}
	}
}

func TestIdleChildSurvivesDescendantAbort(t *testing.T) {
	tr := newTree()
	ctx := tr.Root().Child()
	a, b := &fakeTask{}, &fakeTask{}
	na := ctx.Child().Spawn(a)
	ctx.Child().Spawn(b)
	na.Abort()
	if a.aborted != 1 || b.aborted != 0 {
		t.Fatalf("a %d, b %d", a.aborted, b.aborted)
	}
}

func TestFinishAbortsBelowButNotTheTaskItself(t *testing.T) {
	tr := newTree()
	task, child := &fakeTask{}, &fakeTask{}
	s := tr.Root().Spawn(task)
	s.Child().Spawn(child)
	s.Finish()
	if task.aborted != 0 || child.aborted != 1 {
		t.Fatalf("task %d, child %d", task.aborted, child.aborted)
	}
	if n := tr.Len(); n != 1 {
		t.Fatalf("%d nodes linked after every task ended, want only the root", n)
	}
}

func TestSpawnBelowAbortedNodeFails(t *testing.T) {
	tr := newTree()
	s := tr.Root().Spawn(&fakeTask{})
	ctx := s.Child() // a context made before the abort, never linked
	s.Abort()
	if ctx.Spawn(&fakeTask{}) != nil {
		t.Fatal("spawned below an aborted node")
	}
	if !ctx.Aborted() || !ctx.Child().Aborted() {
		t.Fatal("descendants of an aborted node must report aborted")
	}
}

func TestSparseChainAbort(t *testing.T) {
	const depth = 100_000
	tr := newTree()
	tasks := make([]*fakeTask, depth)
	nodes := make([]*Node, depth)
	n := tr.Root()
	for i := range depth {
		tasks[i] = &fakeTask{}
		nodes[i] = n.Spawn(tasks[i])
		n = nodes[i].Child().Child() // a chain of contexts between spawns
	}
	nodes[0].Abort()
	for i, tk := range tasks {
		if tk.aborted != 1 {
			t.Fatalf("task %d aborted %d times", i, tk.aborted)
		}
	}
	for i := range depth { // finish top-down this time
		nodes[i].Finish()
	}
	if got := tr.Len(); got != 1 {
		t.Fatalf("%d nodes left", got)
	}
}

func TestWideFanOutAbort(t *testing.T) {
	const width = 100_000
	tr := newTree()
	p := tr.Root().Spawn(&fakeTask{})
	ctx := p.Child()
	tasks := make([]*fakeTask, width)
	nodes := make([]*Node, width)
	for i := range width {
		tasks[i] = &fakeTask{}
		nodes[i] = ctx.Spawn(tasks[i])
	}
	// Finishing half of them, scattered, keeps the rest linked.
	for i := 0; i < width; i += 2 {
		nodes[i].Finish()
	}
	if got := tr.Len(); got != 3+width/2 {
		t.Fatalf("%d nodes linked, want %d", got, 3+width/2)
	}
	p.Abort()
	for i := 1; i < width; i += 2 {
		if tasks[i].aborted != 1 {
			t.Fatalf("task %d aborted %d times", i, tasks[i].aborted)
		}
	}
}

func TestUnusedContextsCostNothing(t *testing.T) {
	tr := newTree()
	for range 1000 {
		tr.Root().Child().Child()
	}
	if got := tr.Len(); got != 1 {
		t.Fatalf("%d nodes linked by contexts that never spawned", got)
	}
}
