// Package netlimit holds what the simulator's network (simnet) and the
// production one (tcp) share about their limits, so that both fail the
// same calls with the same errors.
package netlimit

import (
	"fmt"
	"sync/atomic"

	"github.com/simrt/simrt"
)

// RecvSizeError returns the error a network's Recv(n) returns when n is
// negative or above max, its maximum receive size: it matches
// simrt.ErrRecvTooLarge and simrt.ErrRecvFailed, and names pkg (the
// network's package), n, and the configuration field that sets max.
func RecvSizeError(pkg string, n, max int) error {
	if n < 0 {
		return fmt.Errorf("%s: Recv(%d): negative length: %w", pkg, n, simrt.ErrRecvTooLarge)
	}
	return fmt.Errorf("%s: Recv(%d) above MaxRecvSize %d (Config.MaxRecvSize): %w", pkg, n, max, simrt.ErrRecvTooLarge)
}

// RecvMemoryError returns the error a network's Recv(n) returns when its
// buffer would grow by need bytes and the streams already hold held of
// the max bytes of receive memory the network allows. It matches
// simrt.ErrRecvMemory and simrt.ErrRecvFailed, and names the field that
// sets the bound.
func RecvMemoryError(pkg string, n, need, held, max int) error {
	return fmt.Errorf("%s: Recv(%d) needs %d more bytes of receive buffer; the streams hold %d of the %d bytes MaxRecvMemory (Config.MaxRecvMemory) allows: %w",
		pkg, n, need, held, max, simrt.ErrRecvMemory)
}

// Budget is a bound on a quantity shared by concurrent users (bytes of
// receive memory, connections): Take reserves, Give returns. The zero
// value bounds nothing until Max is set. It is safe for concurrent use.
type Budget struct {
	// Max is the bound; zero or negative means none. Set it before use.
	Max  int64
	used atomic.Int64
}

// Take reserves k and reports true, or reserves nothing and reports false
// if that would take the total past Max.
func (b *Budget) Take(k int64) bool {
	for {
		u := b.used.Load()
		if b.Max > 0 && u+k > b.Max {
			return false
		}
		if b.used.CompareAndSwap(u, u+k) {
			return true
		}
	}
}

// Give returns k taken earlier.
func (b *Budget) Give(k int64) { b.used.Add(-k) }

// Used returns what is taken now.
func (b *Budget) Used() int64 { return b.used.Load() }
