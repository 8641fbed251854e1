package core

// BindCompletion stores in *complete (a *func(T, error)) the function that
// completes h (a fresh *simrt.Handle[T], made outside Spawn). The root
// package sets it when it is initialised, so that package storage can give
// devices the handles they complete themselves (a blob's StartSync)
// without the root exporting a way to complete a handle to its users.
var BindCompletion func(h, complete any)
