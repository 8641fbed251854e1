package tcp

import "github.com/simrt/simrt"

// SetOnBackoff makes l call f with the error before each accept backoff.
// Call it before Accept.
func SetOnBackoff(l simrt.Listener, f func(error)) { l.(*listener).onBackoff = f }
