package realtime_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/runtimetest"
)

func TestConformance(t *testing.T) {
	runtimetest.Run(t, runtimetest.Runner{
		Start: func(t *testing.T, o runtimetest.Options, root func(simrt.Context)) {
			realtime.New(realtime.Config{CatchPanics: o.CatchPanics, Logger: quietLogger()}).Start(root)
		},
	})
}
