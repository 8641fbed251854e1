package deterministic_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// A node runs a main as a process does; Kill and Restart run it again, as
// the next incarnation, on what its disk kept.
func ExampleContext_AddNode() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		n, err := ctx.AddNode(deterministic.NodeConfig{
			Name: "db",
			Host: netip.MustParseAddr("10.0.0.1"),
			Main: func(ctx simrt.Context) {
				b, size, _ := ctx.Open("data", []byte("log"))
				fmt.Printf("incarnation %d finds %d bytes\n", deterministic.From(ctx).Node().Incarnation(), size)
				_ = b.WriteAt(size, 0, []byte("x")) // unsynced: in the page cache
				ctx.Sleep(time.Hour)
			},
		})
		if err != nil {
			panic(err)
		}
		ctx.Sleep(time.Second)
		_ = n.Kill() // the page cache survives a kill
		_ = n.Restart()
		ctx.Sleep(time.Second)
		_ = n.PowerOff() // a power loss drops what was never synced
		_ = n.Restart()
		ctx.Sleep(time.Second)
		fmt.Println(n)
	})
	// Output:
	// incarnation 1 finds 0 bytes
	// incarnation 2 finds 1 bytes
	// incarnation 3 finds 0 bytes
	// db (10.0.0.1, running)
}
