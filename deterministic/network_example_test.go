package deterministic_test

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// Two simulated hosts: a message crosses a 10 ms link, then a partition cuts
// them apart and a new dial fails.
func ExampleContext_Network() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
		server, client := ctx.WithHost(b), ctx.WithHost(a) // declare the hosts first
		net := ctx.Network()
		net.SetLink(a, b, simnet.Link{Latency: 10 * time.Millisecond})

		l, _ := server.Bind(netip.AddrPortFrom(b, 80))
		got := simrt.Spawn(server.Child("server"), func(ctx simrt.Context) string {
			_, sink, stream, _ := l.Accept()
			defer sink.Close()
			defer stream.Close()
			msg, _ := stream.Recv(5)
			return string(msg)
		})

		sink, stream, _ := client.Dial(l.Addr())
		defer stream.Close()
		start := ctx.Now()
		sink.Send([]byte("hello"))
		msg, _ := got.Await(ctx)
		fmt.Printf("%s after %v\n", msg, ctx.Now().Sub(start).Round(time.Millisecond))
		sink.Close()

		net.Partition(a, b)
		_, _, err := client.Dial(l.Addr())
		fmt.Println("dial across the partition:", errors.Is(err, simrt.ErrConnectionFailed))
	})
	// Output:
	// hello after 11ms
	// dial across the partition: true
}
