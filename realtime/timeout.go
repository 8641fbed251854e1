package realtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/simrt/simrt/internal/core"
)

// ErrRunTimeout is what Start's panic matches (errors.Is) when the run
// went on past Config.Timeout, as deterministic.ErrRunTimeout is for the
// simulator's Timeout in simulated time.
var ErrRunTimeout = errors.New("realtime: run timeout")

// armTimeout makes the run's failure a run timeout once d of wall time has
// passed, unless the run has failed already, and aborts the root, so that
// Start shuts down and panics with it. The returned function disarms it;
// it is a no-op for d <= 0.
func (rt *runtime) armTimeout(d time.Duration) (disarm func()) {
	if d <= 0 {
		return func() {}
	}
	timer := time.AfterFunc(d, func() {
		err := fmt.Errorf("%w: the run went on past Config.Timeout (%v)", ErrRunTimeout, d)
		if rt.sh.Fail("", &core.Panic{Value: err}) {
			rt.abortRoot(nil)
		}
	})
	return func() { timer.Stop() }
}
