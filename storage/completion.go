package storage

import (
	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
)

// NewCompletion returns a handle and the function that completes it, for a
// storage's work that ends later (Blob.StartSync). The first call of the
// function wins. Aborting such a handle makes Await return
// simrt.ErrAborted; the work itself goes on.
func NewCompletion[T any]() (*simrt.Handle[T], func(v T, err error)) {
	h := new(simrt.Handle[T])
	var complete func(T, error)
	core.BindCompletion(h, &complete)
	return h, complete
}

// Ready returns a handle that has already completed with v and err.
func Ready[T any](v T, err error) *simrt.Handle[T] {
	h, complete := NewCompletion[T]()
	complete(v, err)
	return h
}
