package realtime_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/runtimetest"
)

func TestConformance(t *testing.T) {
	runtimetest.Run(t, runtimetest.Runner{
		TimedOut: realtime.ErrRunTimeout,
		Start: func(t *testing.T, o runtimetest.Options, root func(simrt.Context)) {
			cfg := realtime.Config{CatchPanics: o.CatchPanics, Timeout: o.Timeout, Logger: quietLogger()}
			realtime.New(cfg).Start(root)
		},
	})
}
