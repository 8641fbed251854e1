// Package supervise is the supervision tree shared by both runtimes: every
// context owns a node, every spawned task owns a node below the spawning
// context's node, and when a task ends (or is aborted) everything below its
// node is aborted. All walks are iterative, so 100k-deep chains and
// 100k-wide fan-outs cost no stack.
//
// Nodes made by Child are created detached and linked into the tree only when
// something is spawned below them, and a node that no longer holds a task or
// linked children is unlinked again. The tree therefore holds only the nodes
// that lead to running tasks, however many contexts a program creates.
package supervise

import (
	"sync"
	"unsafe"
)

// Tree is one runtime's supervision tree. Its methods are safe for
// concurrent use; in the simulator the lock is never contended.
type Tree struct {
	mu        sync.Mutex
	root      *Node
	abortTask func(*Node)
}

// Node is one position in the tree. A spawn node (see SpawnAt) holds a
// task until the task finishes or is aborted. It keeps no pointer to the
// task: the runtime embeds the node in its task record and finds the task
// from the node (see New). That keeps Node, which every task carries, small.
type Node struct {
	tree   *Tree
	parent *Node
	// kids holds the linked children, made when the first one links: most
	// nodes (those of tasks that spawn nothing) never have one.
	kids    *[]*Node
	idx     int32 // index in parent's children; -1 while unlinked
	aborted bool
	holds   bool // a spawn node whose task has not finished or been aborted
}

// children returns n's linked children.
func (n *Node) children() []*Node {
	if n.kids == nil {
		return nil
	}
	return *n.kids
}

// New returns a tree with a live root. abortTask aborts the task held by
// the spawn node it is given; the tree calls it at most once per task,
// outside its lock.
func New(abortTask func(spawnNode *Node)) *Tree {
	t := &Tree{abortTask: abortTask}
	t.root = &Node{tree: t, idx: -1}
	return t
}

// Root returns the root node, which belongs to the runtime's root context.
func (t *Tree) Root() *Node { return t.root }

// Child returns a new node below n. It costs nothing in the tree until a
// task is spawned below it.
func (n *Node) Child() *Node {
	return &Node{tree: n.tree, parent: n, idx: -1}
}

// InitChild makes c, which the caller allocated (typically inside a larger
// struct, to save an allocation), a new node below n, as Child does.
func (n *Node) InitChild(c *Node) {
	*c = Node{tree: n.tree, parent: n, idx: -1}
}

func (n *Node) linked() bool { return n.parent == nil || n.idx >= 0 }

// SpawnAt links n (and any unlinked ancestors) into the tree and makes s,
// which the caller allocated inside its task, a new node below n that
// holds that task, and reports true. It reports false, and leaves s as it
// was, if n or an ancestor has been aborted: spawning from an aborted
// context yields a closed handle.
func (n *Node) SpawnAt(s *Node) bool {
	t := n.tree
	t.mu.Lock()
	if !t.attach(n) {
		t.mu.Unlock()
		return false
	}
	*s = Node{tree: t, parent: n, holds: true}
	t.link(s)
	t.mu.Unlock()
	return true
}

// attach links n and its unlinked ancestors, or reports false (marking the
// chain aborted) when an ancestor was aborted.
func (t *Tree) attach(n *Node) bool {
	var chain []*Node
	x := n
	for !x.linked() {
		if x.aborted {
			return false
		}
		chain = append(chain, x)
		x = x.parent
	}
	if x.aborted {
		for _, c := range chain {
			c.aborted = true
		}
		return false
	}
	for i := len(chain) - 1; i >= 0; i-- {
		t.link(chain[i])
	}
	return true
}

func (t *Tree) link(n *Node) {
	p := n.parent
	if p.kids == nil {
		p.kids = new([]*Node)
	}
	n.idx = int32(len(*p.kids))
	*p.kids = append(*p.kids, n)
}

func (t *Tree) unlink(n *Node) {
	if n.parent == nil || n.idx < 0 {
		return
	}
	p := n.parent
	c := *p.kids
	last := len(c) - 1
	c[n.idx] = c[last]
	c[n.idx].idx = n.idx
	c[last] = nil
	*p.kids = c[:last]
	n.idx = -1
}

// release unlinks n and then each ancestor that is left with no task and no
// linked children. It stops at the first node that is already unlinked (an
// abort unlinks whole subtrees at once), so finishing every task of a
// 100,000-deep aborted chain costs O(1) each.
func (t *Tree) release(n *Node) {
	for n.parent != nil && n.idx >= 0 && !n.holds && len(n.children()) == 0 {
		p := n.parent
		t.unlink(n)
		n = p
	}
}

// Abort aborts n and every node below it: each task found is aborted once,
// in depth-first order, after the lock is released. It is valid to call
// Abort more than once.
func (n *Node) Abort() {
	t := n.tree
	t.mu.Lock()
	tasks := t.abort(n, nil)
	t.mu.Unlock()
	t.abortAll(tasks)
}

// abortAll aborts the tasks of spawn nodes that abort collected.
func (t *Tree) abortAll(tasks []*Node) {
	for _, s := range tasks {
		t.abortTask(s)
	}
}

// abort marks n and everything below it aborted and appends the spawn
// nodes that held a task to tasks.
func (t *Tree) abort(n *Node, tasks []*Node) []*Node {
	if len(n.children()) == 0 { // the common case: no walk, no allocation
		if !n.aborted {
			n.aborted = true
			if n.holds {
				tasks = append(tasks, n)
				n.holds = false
			}
		}
		return tasks
	}
	stack := []*Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.aborted {
			continue
		}
		x.aborted = true
		if x.holds {
			tasks = append(tasks, x)
			x.holds = false
		}
		children := x.children()
		for i := len(children) - 1; i >= 0; i-- {
			c := children[i]
			c.idx = -1
			stack = append(stack, c)
		}
		x.kids = nil
	}
	return tasks
}

// Finish records that the task held by s ended: everything below s is
// aborted, and s leaves the tree. Aborting a finished task does nothing.
func (s *Node) Finish() {
	t := s.tree
	t.mu.Lock()
	s.holds = false
	tasks := t.abort(s, nil)
	t.release(s)
	t.mu.Unlock()
	t.abortAll(tasks)
}

// Aborted reports whether n, or an ancestor it would need to link through,
// has been aborted.
func (n *Node) Aborted() bool {
	t := n.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	x := n
	for {
		if x.aborted {
			return true
		}
		if x.linked() {
			return false
		}
		x = x.parent
	}
}

// Len returns the number of linked nodes, root included. Tests use it to
// show that finished tasks leave nothing behind.
func (t *Tree) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	stack := []*Node{t.root}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		stack = append(stack, x.children()...)
	}
	return n
}

// Owner returns the task record *T that holds spawn node n at byte offset
// off (unsafe.Offsetof of its node field). A runtime embeds every spawn
// node in its task record and the tree hands back only spawn nodes, so the
// record is found from the node without a pointer back to it.
func Owner[T any](n *Node, off uintptr) *T { return (*T)(unsafe.Add(unsafe.Pointer(n), -int(off))) }
