package realtime

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/simrt/simrt/internal/core"
)

// pointerWords returns, for each word of a value of type t placed at
// offset off, whether the garbage collector scans it as a pointer, into
// words.
func pointerWords(t reflect.Type, off uintptr, words []bool) {
	const w = unsafe.Sizeof(uintptr(0))
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func:
		words[off/w] = true
	case reflect.Interface:
		words[off/w], words[off/w+1] = true, true
	case reflect.Slice, reflect.String:
		words[off/w] = true
	case reflect.Array:
		for i := range t.Len() {
			pointerWords(t.Elem(), off+uintptr(i)*t.Elem().Size(), words)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			pointerWords(f.Type, off+f.Offset, words)
		}
	}
}

// layout returns t's pointer words (see pointerWords).
func layout(t reflect.Type) []bool {
	words := make([]bool, (t.Size()+unsafe.Sizeof(uintptr(0))-1)/unsafe.Sizeof(uintptr(0)))
	pointerWords(t, 0, words)
	return words
}

// TestTaskRecordLayout: a task lives in a core.TaskRecord allocated with
// its handle (newTask), so the collector, which scans that memory by the
// record's type, must find the task's pointers in the record's pointer
// words and nothing else there: same size, same alignment, the same words
// holding pointers.
func TestTaskRecordLayout(t *testing.T) {
	task, rec := reflect.TypeFor[task](), reflect.TypeFor[core.TaskRecord]()
	if task.Size() != rec.Size() || task.Align() != rec.Align() {
		t.Fatalf("task is %d bytes aligned to %d, core.TaskRecord %d aligned to %d",
			task.Size(), task.Align(), rec.Size(), rec.Align())
	}
	tw, rw := layout(task), layout(rec)
	for i := range tw {
		if tw[i] != rw[i] {
			t.Errorf("word %d: a pointer in task: %v, in core.TaskRecord: %v", i, tw[i], rw[i])
		}
	}
}

// TestLayoutSeesEveryPointer checks the checker on a type whose pointer
// words are known.
func TestLayoutSeesEveryPointer(t *testing.T) {
	type mixed struct {
		a uint32
		b uint32
		p *int
		i any
		s []int
		n [2]struct {
			x int64
			m map[int]int
		}
	}
	got := layout(reflect.TypeFor[mixed]())
	want := []bool{false, true, true, true, true, false, false, false, true, false, true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("layout = %v, want %v", got, want)
	}
}
