package simrt_test

import (
	"testing"

	"github.com/simrt/simrt"
)

// A Select case made on a nil *Chan panics when it is made, naming the
// method, in both runtimes, not later as a nil dereference inside Select.
func TestNilChanCasePanicsAtTheCall(t *testing.T) {
	onBothRuntimes(t, func(t *testing.T, ctx simrt.Context) {
		var c *simrt.Chan[int]
		cases := []struct {
			want string
			call func()
		}{
			{"simrt: Chan.OnRecv called on a nil *Chan", func() { c.OnRecv(nil) }},
			{"simrt: Chan.OnSend called on a nil *Chan", func() { c.OnSend(1, nil) }},
		}
		for _, k := range cases {
			if got := panicText(k.call); got != k.want {
				t.Errorf("panic = %q, want %q", got, k.want)
			}
		}
	})
}
