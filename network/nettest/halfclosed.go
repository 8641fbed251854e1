package nettest

import (
	"errors"
	"time"

	"github.com/simrt/simrt"
)

// A peer that closed only its stream (its read half) still has its
// connection open, so a Send to it is accepted, as TCP accepts it: the
// bytes go to a receive buffer nobody reads, and a Send far larger than
// the buffers then blocks until a Timeout cuts it (ErrTimeout), never
// failing with ErrSendFailed. The peer's sink keeps working, the other
// way. Only once the peer has closed both halves does Send fail (see
// SendErrorPoisonsSink).
func sendToClosedStreamIsAccepted(t T, env Env) {
	withConnection(t, env, func(c, s conn) {
		if err := s.stream.Close(); err != nil {
			t.Errorf("the peer's stream Close: %v", err)
			return
		}
		if err := c.sink.Send(clientData); err != nil {
			t.Errorf("Send to a peer that closed only its stream = %v, want nil (its connection is open)", err)
			return
		}
		if !send(t, s.sink, "the peer's sink, its stream closed", serverData) ||
			!expect(t, c.stream, serverData, "from a peer that closed only its stream") {
			return
		}
		big := cutStream(cutSendSize)
		err := simrt.Timeout(env, 100*time.Millisecond, func() error { return c.sink.Send(big) })
		if !errors.Is(err, simrt.ErrTimeout) {
			t.Errorf("a Send of %d bytes to a peer that closed its stream = %v, want ErrTimeout (it waits for buffer space that never frees)", len(big), err)
		}
	})
}
