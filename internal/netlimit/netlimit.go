// Package netlimit holds what the simulator's network (simnet) and the
// production one (tcp) share about their limits, so that both fail the
// same calls with the same errors.
package netlimit

import (
	"fmt"

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
