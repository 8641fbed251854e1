package tcp_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/gotask"
	"github.com/simrt/simrt/network/nettest"
	"github.com/simrt/simrt/network/tcp"
	"github.com/simrt/simrt/rtapi"
)

// env runs suite tasks as goroutines of a gotask runtime.
type env struct {
	rt  *gotask.Runtime
	net simrt.Network
}

func (e env) CurrentTask() *core.Task                         { return e.rt.CurrentTask() }
func (e env) AfterFunc(d time.Duration, f func()) rtapi.Timer { return e.rt.AfterFunc(d, f) }
func (e env) SpawnTask(t rtapi.Task) rtapi.Aborter            { return e.rt.SpawnTask(t) }
func (e env) Network() simrt.Network                          { return e.net }
func (e env) Sleep(d time.Duration)                           { simrt.Select(e.rt, simrt.After(e.rt, d, nil)) }
func (e env) Go(f func(nettest.Env)) func()                   { return e.rt.Go(func() { f(e) }) }

func TestConformance(t *testing.T) {
	defer goleak.VerifyNone(t)
	nettest.Run(t, func(t *testing.T, body func(nettest.Env)) {
		rt := gotask.New()
		rt.Run(func() { body(env{rt: rt, net: tcp.New(rt, tcp.Config{})}) })
	})
}
