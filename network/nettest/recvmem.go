package nettest

import (
	"bytes"
	"strings"
	"time"

	"github.com/simrt/simrt"
)

// BudgetRecvMemory is the MaxRecvMemory of the network that RunRecvMemory's
// harness must build: 1 MiB.
const BudgetRecvMemory = 1 << 20

// recvMemoryCases are the cases about the bound on receive memory (see
// RunRecvMemory).
var recvMemoryCases = []struct {
	name  string
	check func(t T, env Env)
}{
	{"RecvPastMemoryBudgetFails", recvPastMemoryBudgetFails},
}

// The streams of a network hold at most MaxRecvMemory together for Recvs
// larger than their own buffer: with one Recv of 1 MiB parked on 700 KiB
// that arrived, a second one on another connection, whose 1 MiB arrives,
// fails with ErrRecvMemory (which matches ErrRecvFailed, and whose text
// names MaxRecvMemory) instead of taking more, and poisons only its
// stream. Once the first stream is closed, its memory is back: a third
// Recv of 1 MiB succeeds.
func recvPastMemoryBudgetFails(t T, env Env) {
	const n, part = BudgetRecvMemory, 700 << 10
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	var ends [3][2]conn
	for i := range ends {
		c, s, ok := connect(t, env, l)
		if !ok {
			return
		}
		defer c.close()
		defer s.close()
		ends[i] = [2]conn{c, s}
	}
	msg := pattern(n)
	var sends []func()
	sendFrom := func(s conn, b []byte) { // a task: the simulator's Send parks until the peer pulls
		sends = append(sends, env.Go(func(Env) { s.sink.Send(b) }))
	}

	// A parks in a Recv of 1 MiB with 700 KiB arrived.
	a, b, c := ends[0][0], ends[1][0], ends[2][0]
	sendFrom(ends[0][1], msg[:part])
	var aErr error
	aDone := env.Go(func(env Env) {
		simrt.Timeout(env, guard, func() error { _, aErr = a.stream.Recv(n); return nil })
	})
	env.Sleep(50 * time.Millisecond)

	// B's Recv of 1 MiB would need more than is left.
	sendFrom(ends[1][1], msg)
	var bErr error
	if terr := simrt.Timeout(env, guard, func() error { _, bErr = b.stream.Recv(n); return nil }); terr != nil {
		t.Errorf("a second Recv(%d) while another holds %d bytes, with MaxRecvMemory %d: still waiting after %v", n, part, BudgetRecvMemory, guard)
	}
	what := "a second Recv of 1 MiB while another holds 700 KiB, with MaxRecvMemory 1 MiB"
	wantErr(t, bErr, simrt.ErrRecvMemory, what)
	wantErr(t, bErr, simrt.ErrRecvFailed, what)
	if bErr != nil && !strings.Contains(bErr.Error(), "MaxRecvMemory") {
		t.Errorf("%s: error %q does not name MaxRecvMemory", what, bErr)
	}
	if _, err := b.stream.Recv(1); err == nil {
		t.Errorf("Recv after ErrRecvMemory succeeded: want the stream poisoned")
	}
	b.close() // ends the peer's Send

	// Closing A's stream gives its memory back.
	a.stream.Close()
	aDone()
	wantErr(t, aErr, simrt.ErrClosed, "the first Recv, cut by Close")
	sendFrom(ends[2][1], msg)
	if terr := simrt.Timeout(env, guard, func() error {
		got, err := c.stream.Recv(n)
		switch {
		case err != nil:
			t.Errorf("Recv(%d) once the other streams gave their memory back: %v", n, err)
		case !bytes.Equal(got, msg):
			t.Errorf("Recv(%d) once the other streams gave their memory back: wrong bytes", n)
		}
		return nil
	}); terr != nil {
		t.Errorf("Recv(%d) once the other streams gave their memory back: still waiting after %v", n, guard)
	}
	for i := range ends {
		ends[i][0].close()
		ends[i][1].close()
	}
	for _, w := range sends {
		w()
	}
}
