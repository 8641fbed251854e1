package deterministic

import "testing"

// stableStack leaves out of a stack what differs between two runs of one
// seed, the goroutine numbers and argument words, and keeps the frames.
func TestStableStack(t *testing.T) {
	in := "goroutine 5 [running]:\n" +
		"runtime/debug.Stack()\n" +
		"\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\n" +
		"panic({0xacc2a0?, 0x11941a0?})\n" +
		"\t/usr/local/go/src/runtime/panic.go:860 +0x13a\n" +
		"github.com/simrt/simrt/deterministic.(*task).run(0x2575af09a000)\n" +
		"\t/work/deterministic/task.go:124 +0x38\n" +
		"github.com/simrt/simrt.(*spawned[...]).Run(...)\n" +
		"\t/work/handle.go:42\n" +
		"created by iter.Pull[...] in goroutine 4\n" +
		"\t/usr/local/go/src/iter/iter.go:271 +0x90\n"
	want := "goroutine N [running]:\n" +
		"runtime/debug.Stack(...)\n" +
		"\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\n" +
		"panic(...)\n" +
		"\t/usr/local/go/src/runtime/panic.go:860 +0x13a\n" +
		"github.com/simrt/simrt/deterministic.(*task).run(...)\n" +
		"\t/work/deterministic/task.go:124 +0x38\n" +
		"github.com/simrt/simrt.(*spawned[...]).Run(...)\n" +
		"\t/work/handle.go:42\n" +
		"created by iter.Pull[...] in goroutine N\n" +
		"\t/usr/local/go/src/iter/iter.go:271 +0x90\n"
	if got := stableStack([]byte(in)); got != want {
		t.Errorf("stableStack =\n%s\nwant\n%s", got, want)
	}
}
