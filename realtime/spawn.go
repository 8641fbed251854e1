package realtime

import (
	"unsafe"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

var _ rtapi.RecordSpawner = (*Context)(nil)

// SpawnRecord implements rtapi.RecordSpawner: SpawnTask, with the task
// kept in rec, which simrt.Spawn allocated with the task's handle. User
// code calls simrt.Spawn instead.
func (c *Context) SpawnRecord(t rtapi.Task, rec *core.TaskRecord) rtapi.Aborter {
	return c.rt().spawn(c, t, rec)
}

// newTask returns a zero task record: rec seen as one, or a new one if rec
// is nil. The two types have the same layout for the garbage collector
// (spawn_layout_test.go), so the record's words hold the task's pointers
// where the collector looks for them, and the task's plain data where it
// does not.
func newTask(rec *core.TaskRecord) *task {
	if rec == nil {
		return &task{}
	}
	return (*task)(unsafe.Pointer(rec))
}
