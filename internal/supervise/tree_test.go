package supervise

import (
	"testing"
)

// Tests that complement tree_cases_test.go: the Go sibling rule, a deep
// chain of contexts that never spawned, and a deep chain finished from the
// leaf up after an abort.

// spawn spawns a fresh task below n and fails the test if n is aborted.
func spawn(t *testing.T, n *Node) (*Node, *fakeTask) {
	t.Helper()
	tk := &fakeTask{}
	s := n.Spawn(tk)
	if s == nil {
		t.Fatal("Spawn returned nil below a live node")
	}
	return s, tk
}

// TestFinishLeavesSiblingsAlone: tasks spawned from one context are
// independent; one finishing aborts only what it spawned itself.
func TestFinishLeavesSiblingsAlone(t *testing.T) {
	tr := newTree()
	ctx := tr.Root().Child()
	a, _ := spawn(t, ctx)
	_, child := spawn(t, a.Child())
	_, sibling := spawn(t, ctx)
	a.Finish()
	if child.aborted != 1 || sibling.aborted != 0 {
		t.Fatalf("after a finished: its child aborted %d times (want 1), its sibling %d (want 0)", child.aborted, sibling.aborted)
	}
}

// TestDeepUnlinkedChain: a spawn below 100,000 nested contexts that never
// spawned links them all without recursion, an abort at the top reaches
// it, and finishing both tasks leaves only the root.
func TestDeepUnlinkedChain(t *testing.T) {
	const depth = 100_000
	tr := newTree()
	top, _ := spawn(t, tr.Root())
	n := top.Child()
	for range depth {
		n = n.Child()
	}
	leaf, tk := spawn(t, n)
	top.Abort()
	if tk.aborted != 1 {
		t.Fatalf("leaf aborted %d times, want 1", tk.aborted)
	}
	leaf.Finish()
	top.Finish()
	if l := tr.Len(); l != 1 {
		t.Fatalf("Len after both tasks finished = %d, want 1", l)
	}
}

// TestDeepChainAbortThenFinishLeafFirst: after the abort of a 100,000-deep
// task chain every task finishes, deepest first; no Finish may cost the
// depth of the chain (this once took a minute).
func TestDeepChainAbortThenFinishLeafFirst(t *testing.T) {
	const depth = 100_000
	tr := newTree()
	nodes := make([]*Node, depth)
	n := tr.Root()
	for i := range depth {
		nodes[i], _ = spawn(t, n)
		n = nodes[i].Child()
	}
	nodes[0].Abort()
	for i := depth - 1; i >= 0; i-- {
		nodes[i].Finish()
	}
	if l := tr.Len(); l != 1 {
		t.Fatalf("Len after every task finished = %d, want 1", l)
	}
}
