package simrt

import (
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestCaseWaiterLayout checks what syncOf relies on for a channel's Select
// case: in primCase, the value at the start of the case's state sits where
// a syncWaiter keeps its value, so that a partner that completes the case
// through its waiter hands over or takes the case's own value.
func TestCaseWaiterLayout(t *testing.T) {
	checkCaseLayout[int](t, "int")
	checkCaseLayout[byte](t, "byte")
	checkCaseLayout[struct{}](t, "struct{}")
	checkCaseLayout[[3]byte](t, "[3]byte")
	checkCaseLayout[string](t, "string")
	checkCaseLayout[complex128](t, "complex128")
	checkCaseLayout[atomic.Int64](t, "atomic.Int64")
	checkCaseLayout[[5]uint16](t, "[5]uint16")
}

func checkCaseLayout[T any](t *testing.T, name string) {
	t.Helper()
	var sw syncWaiter[T]
	want := unsafe.Offsetof(sw.v)
	var r primCase[recvState[T], func(T, bool)]
	if got := unsafe.Offsetof(r.s) + unsafe.Offsetof(r.s.v); unsafe.Offsetof(r.w) != 0 || got != want {
		t.Errorf("receive case on chan %s: value at %d (waiter at %d), syncWaiter's at %d", name, got, unsafe.Offsetof(r.w), want)
	}
	var s primCase[sendState[T], func(error)]
	if got := unsafe.Offsetof(s.s) + unsafe.Offsetof(s.s.v); unsafe.Offsetof(s.w) != 0 || got != want {
		t.Errorf("send case on chan %s: value at %d (waiter at %d), syncWaiter's at %d", name, got, unsafe.Offsetof(s.w), want)
	}
	// Through the case's waiter, the partner's view is the case's value.
	var v T
	if p := &syncOf[T](&r.w).v; unsafe.Pointer(p) != unsafe.Pointer(&r.s.v) && unsafe.Sizeof(v) != 0 {
		t.Errorf("receive case on chan %s: syncOf(&w).v is not the case's value", name)
	}
}
