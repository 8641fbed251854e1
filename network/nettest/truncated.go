package nettest

import (
	"errors"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// cutSendSize is the Send that cutSendDeliversStrictPrefix cuts: far more
// than any buffer between the two ends (simnet's BufferSize is 64 KiB by
// default; a loopback TCP connection whose peer reads nothing takes a few
// hundred KiB at most).
const cutSendSize = 8 << 20

// streamByte is byte i of the stream cutSendDeliversStrictPrefix sends: no
// shift of a multiple of 256 (a dropped or repeated buffer) maps it onto
// itself.
func streamByte(i int) byte { return byte(i ^ i>>8 ^ i>>16) }

// A Send much larger than any buffer, cut by its task's Timeout while the
// peer reads nothing, delivers only what left the sender before the cut:
// the peer receives a strict prefix of the Send, every byte right, and then
// its Recv fails with ErrRecvFailed. Over TCP the prefix is what the kernels
// had taken; in the simulator it is what the stream had pulled plus at most
// the buffer beyond it. (A simulator that handed the whole Send to the link
// at once, and delivered it all, could never show a peer a truncated frame,
// which production produces routinely.)
func cutSendDeliversStrictPrefix(t *testing.T, env Env) {
	withConnection(t, env, func(c, s conn) {
		big := make([]byte, cutSendSize)
		for i := range big {
			big[i] = streamByte(i)
		}
		err := simrt.Timeout(env, 100*time.Millisecond, func() error { return c.sink.Send(big) })
		if !errors.Is(err, simrt.ErrTimeout) {
			t.Errorf("a Send of %d bytes the peer does not read: got error %v, want ErrTimeout", len(big), err)
			return
		}
		got := 0
		var rerr error
		terr := simrt.Timeout(env, guard, func() error {
			for got <= len(big) {
				var p []byte
				if p, rerr = s.stream.Recv(max(1, len(s.stream.Peek(64<<10)))); rerr != nil {
					return nil
				}
				for i, b := range p {
					if want := streamByte(got + i); b != want {
						t.Errorf("peer of a cut Send: byte %d is %d, want %d", got+i, b, want)
						return nil
					}
				}
				got += len(p)
			}
			return nil
		})
		switch {
		case terr != nil:
			t.Errorf("the peer of a cut Send still waits after %v, at byte %d: want its stream to end", guard, got)
		case got >= len(big):
			t.Errorf("the peer of a Send of %d bytes cut while it read nothing received %d bytes: want a strict prefix", len(big), got)
		default:
			wantErr(t, rerr, simrt.ErrRecvFailed, "peer's Recv after the prefix of a cut Send")
		}
	})
}
