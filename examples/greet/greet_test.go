package greet

import (
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
)

// The tests below are the ones docs/PRODUCTION.md shows, word for word.

// TestGreet runs server and client in one seeded simulation: simulated
// time and network, same result on every run of the seed.
func TestGreet(t *testing.T) {
	deterministic.New(deterministic.Config{Seed: 1, Timeout: time.Minute}).Start(func(ctx *deterministic.Context) {
		run(t, ctx, netip.MustParseAddrPort("127.0.0.1:7000"), "simulation")
	})
}

// run is the scenario; it takes a simrt.Context and runs on any runtime.
func run(t *testing.T, ctx simrt.Context, addr netip.AddrPort, name string) {
	l, err := ctx.Bind(addr)
	if err != nil {
		t.Fatal(err)
	}
	server := simrt.Spawn(ctx.Child("server"), func(ctx simrt.Context) error { return Serve(ctx, l) })
	got, err := Greet(ctx.Child("client"), l.Addr(), name)
	if err != nil || got != "hello, "+name {
		t.Errorf("Greet = %q, %v", got, err)
	}
	if err := ctx.Stop(0, time.Second); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err, _ := server.Await(ctx); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestGreetRealtime(t *testing.T) {
	realtime.New(realtime.Config{}).Start(func(ctx simrt.Context) {
		run(t, ctx, netip.MustParseAddrPort("127.0.0.1:0"), "production")
	})
}
