package realtime_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/runtimetest"
	"github.com/simrt/simrt/suite"
)

// production is the production runtime as the conformance suites' runtime
// under test: each case runs as the root task of a fresh runtime, built
// from cfg (t gives the case's temporary directory).
func production(cfg func(t suite.T) realtime.Config) suite.Runtime {
	return suite.Runtime{
		TimedOut: realtime.ErrRunTimeout,
		Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
			c := realtime.Config{}
			if cfg != nil {
				c = cfg(t)
			}
			c.CatchPanics, c.Timeout = o.CatchPanics, o.Timeout
			if c.Logger == nil {
				c.Logger = quietLogger()
			}
			realtime.New(c).Start(root)
		},
	}
}

func TestConformance(t *testing.T) {
	runtimetest.Run(t, production(nil))
}
