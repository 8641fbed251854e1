// Package simrt is a stand-in for the real package: the analyzer looks
// only at whether a package imports it, and at a context's clock methods.
package simrt

import "time"

// Context is the part of simrt.Context the fixes use.
type Context interface {
	Now() time.Time
	Sleep(d time.Duration)
}
