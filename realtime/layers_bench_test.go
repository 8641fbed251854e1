//go:build unix

package realtime

import (
	"io"
	"log/slog"
	"net/netip"
	"syscall"
	"testing"

	"github.com/simrt/simrt"
)

// BenchmarkPingPong64Layers splits BenchmarkPingPong64/realtime into what
// each layer of the runtime's network costs: the same round trip from the
// same two realtime tasks over bare tcp (the floor the task layer sets:
// what the runtime adds to plain goroutines and tcp), over the device
// (tcp under the interruption layer), and over the whole stack (metered
// over the device, what Context.Dial returns).
func BenchmarkPingPong64Layers(b *testing.B) {
	for _, layer := range []struct {
		name string
		net  func(c *Context) simrt.Network
	}{
		{"tcp", func(c *Context) simrt.Network { return c.rt().network.tcp }},
		{"device", func(c *Context) simrt.Network { return &device{rt: c.rt(), owner: c.task} }},
		{"stack", func(c *Context) simrt.Network { return c }},
	} {
		b.Run(layer.name, func(b *testing.B) {
			b.ReportAllocs()
			New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Start(func(ctx simrt.Context) {
				c := ctx.(*Context)
				c.rt().netUsed.Store(true) // as Bind does: tasks are marked as they start
				pingPong64(b, c, layer.net(c))
			})
		})
	}
}

// pingPong64 is the body of BenchmarkPingPong64/realtime over n.
func pingPong64(b *testing.B, ctx simrt.Context, n simrt.Network) {
	const size = 64
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	simrt.Spawn(ctx.Child("echo"), func(simrt.Context) int {
		_, si, st, err := l.Accept()
		if err != nil {
			return 0
		}
		defer si.Close()
		defer st.Close()
		for {
			msg, err := st.Recv(size)
			if err != nil || si.Send(msg) != nil {
				return 0
			}
		}
	})
	si, st, err := n.Dial(l.Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer si.Close()
	defer st.Close()
	msg := make([]byte, size)
	start := cpuTime()
	for b.Loop() {
		if err := si.Send(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := st.Recv(size); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's CPU time (user and system, all threads), as
// realtime_test's cpuMeter reports it.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
