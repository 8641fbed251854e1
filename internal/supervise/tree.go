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

import "sync"

// Aborter is the task a spawn node holds.
type Aborter interface {
	// Abort stops the task. It is called at most once per task, outside the
	// tree's lock.
	Abort()
}

// Tree is one runtime's supervision tree. Its methods are safe for
// concurrent use; in the simulator the lock is never contended.
type Tree struct {
	mu   sync.Mutex
	root *Node
}

// Node is one position in the tree.
type Node struct {
	tree   *Tree
	parent *Node
	// kids holds the linked children, made when the first one links: most
	// nodes (those of tasks that spawn nothing) never have one, and a
	// pointer keeps Node, which a runtime embeds in every task, small.
	kids    *[]*Node
	task    Aborter
	idx     int32 // index in parent's children; -1 while unlinked
	aborted bool
}

// children returns n's linked children.
func (n *Node) children() []*Node {
	if n.kids == nil {
		return nil
	}
	return *n.kids
}

// New returns a tree with a live root.
func New() *Tree {
	t := &Tree{}
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

// Spawn links n (and any unlinked ancestors) into the tree and adds a new
// node below it that holds task. It returns nil if n or an ancestor has been
// aborted: spawning from an aborted context yields a closed handle.
func (n *Node) Spawn(task Aborter) *Node {
	s := new(Node)
	if !n.SpawnAt(s, task) {
		return nil
	}
	return s
}

// SpawnAt is Spawn into a node the caller allocated (typically inside its
// task, to save an allocation): it makes s a new node below n that holds
// task and reports true, or reports false and leaves s as it was if n or
// an ancestor has been aborted.
func (n *Node) SpawnAt(s *Node, task Aborter) bool {
	t := n.tree
	t.mu.Lock()
	if !t.attach(n) {
		t.mu.Unlock()
		return false
	}
	*s = Node{tree: t, parent: n, task: task}
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
	for n.parent != nil && n.idx >= 0 && n.task == nil && len(n.children()) == 0 {
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
	for _, a := range tasks {
		a.Abort()
	}
}

func (t *Tree) abort(n *Node, tasks []Aborter) []Aborter {
	if len(n.children()) == 0 { // the common case: no walk, no allocation
		if !n.aborted {
			n.aborted = true
			if n.task != nil {
				tasks = append(tasks, n.task)
				n.task = nil
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
		if x.task != nil {
			tasks = append(tasks, x.task)
			x.task = nil
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
	s.task = nil
	tasks := t.abort(s, nil)
	t.release(s)
	t.mu.Unlock()
	for _, a := range tasks {
		a.Abort()
	}
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
