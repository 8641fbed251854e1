package nettest

import (
	"bytes"
	"errors"
	"time"

	"github.com/simrt/simrt"
)

// cutSendSize is the Send that cutSendDeliversStrictPrefix cuts: far more
// than any buffer between the two ends. simnet's BufferSize is 64 KiB by
// default; over loopback TCP, with Linux's default largest send buffer
// (tcp_wmem 4 MiB), the two kernels take about 3.9 MB of a Send whose peer
// reads nothing (2026-12-02), and 32 MiB leaves room for hosts tuned
// for more.
const cutSendSize = 32 << 20

// cutStream returns the n bytes cutSendDeliversStrictPrefix sends: blocks
// of 64 KiB, block k a window of one table starting at k mod 251, so that
// no shift of a whole block, or of a multiple of 256 bytes, maps the stream
// onto itself. It is built by copies, cheap under the race detector.
func cutStream(n int) []byte {
	const block, windows = 64 << 10, 251
	table := make([]byte, block+windows)
	for j := range table {
		table[j] = byte(j ^ j>>8)
	}
	out := make([]byte, n)
	for k := 0; k*block < n; k++ {
		copy(out[k*block:], table[k%windows:][:block])
	}
	return out
}

// A Send much larger than any buffer, cut by its task's Timeout while the
// peer reads nothing, delivers only what left the sender before the cut:
// the peer receives a strict prefix of the Send, every byte right, and then
// its Recv fails with ErrRecvFailed. Over TCP the prefix is what the kernels
// had taken; in the simulator it is what the stream had pulled plus at most
// the buffer beyond it. (A simulator that handed the whole Send to the link
// at once, and delivered it all, could never show a peer a truncated frame,
// which production produces routinely.)
func cutSendDeliversStrictPrefix(t T, env Env) {
	withConnection(t, env, func(c, s conn) {
		big := cutStream(cutSendSize)
		err := simrt.Timeout(env, 100*time.Millisecond, func() error { return c.sink.Send(big) })
		if !errors.Is(err, simrt.ErrTimeout) {
			t.Errorf("a Send of %d bytes the peer does not read: got error %v, want ErrTimeout", len(big), err)
			return
		}
		got := 0
		var rerr error
		terr := simrt.Timeout(env, guard, func() error {
			for {
				var p []byte
				if p, rerr = s.stream.Recv(max(1, len(s.stream.Peek(64<<10)))); rerr != nil {
					return nil
				}
				if len(p) > len(big)-got || !bytes.Equal(p, big[got:got+len(p)]) {
					t.Errorf("peer of a cut Send: the %d bytes from byte %d are not those sent", len(p), got)
					return nil
				}
				got += len(p)
			}
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
