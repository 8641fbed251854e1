package deterministic_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// A deadline keeps its instant inside a Cycle for every kind of wait, not
// only a Sleep: bytes that arrive 800µs after a Send, within the same 1ms
// step of the clock, come after a 300µs deadline (the Recv times out and
// the bytes are not taken) and before a 900µs one (the Recv gets them).
func TestDeadlineBeforeArrivalWithinCycle(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want error
	}{
		{300 * time.Microsecond, simrt.ErrTimeout},
		{900 * time.Microsecond, nil},
	} {
		deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
			ctx.Network().SetDefaultLink(simnet.Link{Latency: 800 * time.Microsecond})
			l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:7000"))
			if err != nil {
				t.Fatal(err)
			}
			si, _, err := ctx.Dial(l.Addr())
			if err != nil {
				t.Fatal(err)
			}
			_, _, st, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			if err := si.Send([]byte("late")); err != nil {
				t.Fatal(err)
			}
			err = simrt.Timeout(ctx, c.d, func() error {
				_, err := st.Recv(4)
				return err
			})
			if !errors.Is(err, c.want) && err != c.want {
				t.Errorf("Timeout(%v) of a Recv whose bytes arrive after 800µs = %v, want %v", c.d, err, c.want)
			}
		})
	}
}
