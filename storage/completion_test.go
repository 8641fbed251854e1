package storage_test

import (
	"errors"
	"testing"

	"github.com/simrt/simrt/storage"
)

// A completion handle is pending until its function is called; the first
// call wins; Ready is complete at once. (Awaiting them from tasks of both
// runtimes is runtimetest's CompletionHandle case.)
func TestCompletion(t *testing.T) {
	h, complete := storage.NewCompletion[int]()
	if h.Done() {
		t.Fatal("a new completion handle is done")
	}
	complete(5, nil)
	complete(6, errors.New("second"))
	if !h.Done() {
		t.Fatal("a completed handle is not done")
	}
	if v, err := h.Await(nil); v != 5 || err != nil {
		t.Errorf("Await = %v, %v; want the first completion's 5, nil", v, err)
	}
	boom := errors.New("boom")
	r := storage.Ready(7, boom)
	if v, err := r.Await(nil); !r.Done() || v != 7 || err != boom {
		t.Errorf("Ready(7, boom): done %v, Await = %v, %v", r.Done(), v, err)
	}
}
