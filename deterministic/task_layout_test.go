package deterministic

import (
	"testing"
	"unsafe"

	"github.com/simrt/simrt"
)

// TestTaskLayout pins what a resume reads to two cache lines of a spawned
// task's record (see task): the executor's and the park's fields in the
// first, the core.Task and the scope of the task's own context in the
// second, and the record in a 64-byte aligned size class.
func TestTaskLayout(t *testing.T) {
	const line = 64
	var tc taskWithContext
	tk := &tc.task
	if got := unsafe.Offsetof(tc.task); got != 0 {
		t.Fatalf("task at offset %d of taskWithContext, want 0", got)
	}
	first := map[string]uintptr{
		"finished": unsafe.Offsetof(tk.finished), "queued": unsafe.Offsetof(tk.queued),
		"permit": unsafe.Offsetof(tk.permit), "parked": unsafe.Offsetof(tk.parked),
		"wake": unsafe.Offsetof(tk.wake),
		"id":   unsafe.Offsetof(tk.id), "next": unsafe.Offsetof(tk.next) + 7,
		"yield": unsafe.Offsetof(tk.yield) + 7, "rt": unsafe.Offsetof(tk.rt) + 7,
		"label": unsafe.Offsetof(tk.label) + 7, "since": unsafe.Offsetof(tk.since) + 7,
		"prio": unsafe.Offsetof(tk.prio) + 7,
	}
	for name, end := range first {
		if end >= line {
			t.Errorf("task.%s ends at byte %d, past the first cache line", name, end)
		}
	}
	ct := unsafe.Offsetof(tk.ct)
	scope := unsafe.Offsetof(tk.own) + unsafe.Offsetof(tk.own.shellContext)
	if ct < line || ct+unsafe.Sizeof(tk.ct) > 2*line {
		t.Errorf("task.ct at bytes %d..%d, want it inside the second cache line", ct, ct+unsafe.Sizeof(tk.ct))
	}
	if scope < line || scope+unsafe.Sizeof(tk.own.shellContext) > 2*line {
		t.Errorf("own's shell.Context at bytes %d..%d, want it inside the second cache line",
			scope, scope+unsafe.Sizeof(tk.own.shellContext))
	}
	if w := unsafe.Offsetof(tk.waiter); w/line != (w+unsafe.Sizeof(tk.waiter)-1)/line {
		t.Errorf("task.waiter at bytes %d..%d straddles two cache lines", w, w+unsafe.Sizeof(tk.waiter))
	}
	if size := unsafe.Sizeof(tc); size != 384 {
		t.Errorf("taskWithContext is %d bytes, want 384 (a 64-byte aligned size class)", size)
	}
	Seeded(1).Start(func(ctx *Context) {
		for range 16 {
			simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				if p := uintptr(unsafe.Pointer(From(ctx).task)); p%line != 0 {
					t.Errorf("a spawned task at %#x, not 64-byte aligned", p)
				}
				return struct{}{}
			}).Await(ctx)
		}
	})
}
