package realtime

import (
	"testing"

	"github.com/simrt/simrt/internal/supervise"
)

// TestTaskOfSpawnNode: the tree hands the runtime a spawn node, and taskOf
// finds the task the node is embedded in.
func TestTaskOfSpawnNode(t *testing.T) {
	var aborted *task
	tree := supervise.New(func(n *supervise.Node) { aborted = taskOf(n) })
	tk := &task{}
	if !tree.Root().SpawnAt(&tk.node) {
		t.Fatal("SpawnAt refused below a live root")
	}
	if got := taskOf(&tk.node); got != tk {
		t.Fatalf("taskOf(&t.node) = %p, want %p", got, tk)
	}
	tk.node.Abort()
	if aborted != tk {
		t.Fatalf("the tree aborted %p, want the task %p", aborted, tk)
	}
}
