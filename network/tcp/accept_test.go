package tcp_test

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
)

type acceptResult struct {
	sink   simrt.Sink
	stream simrt.Stream
	err    error
}

func acceptAsync(a *tcp.AcceptCall) <-chan acceptResult {
	ch := make(chan acceptResult, 1)
	go func() {
		_, si, st, err := a.Accept()
		ch <- acceptResult{si, st, err}
	}()
	return ch
}

// roundTrip checks that a dialled connection and its accepted end carry
// bytes.
func roundTrip(t *testing.T, dialer simrt.Sink, got acceptResult) {
	t.Helper()
	if got.err != nil {
		t.Fatalf("Accept: %v", got.err)
	}
	defer got.sink.Close()
	defer got.stream.Close()
	if err := dialer.Send([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	p, err := got.stream.Recv(4)
	if err != nil || !bytes.Equal(p, []byte("ping")) {
		t.Fatalf("Recv = %q, %v; want ping", p, err)
	}
}

func bindLoopback(t *testing.T) (*tcp.Network, simrt.Listener) {
	n := tcp.New(tcp.Config{})
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	return n, l
}

// Interrupting one of two blocked AcceptCalls returns ErrInterrupted from
// it alone; the other gets the next dial's connection, and the listener
// stays open for a later Accept.
func TestAcceptCallInterruptLeavesListenerOpen(t *testing.T) {
	n, l := bindLoopback(t)
	defer l.Close()
	cut, other := tcp.NewAccept(l), tcp.NewAccept(l)
	cutDone, otherDone := acceptAsync(cut), acceptAsync(other)
	time.Sleep(20 * time.Millisecond) // both block (the test holds if not)
	cut.Interrupt()
	if r := <-cutDone; !errors.Is(r.err, tcp.ErrInterrupted) {
		t.Fatalf("the interrupted Accept returned %v, want ErrInterrupted", r.err)
	}
	select {
	case r := <-otherDone:
		t.Fatalf("the Accept not interrupted returned %v", r.err)
	case <-time.After(20 * time.Millisecond):
	}
	for _, done := range []<-chan acceptResult{otherDone, acceptAsync(tcp.NewAccept(l))} {
		si, st, err := n.Dial(l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, si, <-done)
		si.Close()
		st.Close()
	}
}

// A connection the kernel gave an AcceptCall that was cut just then goes
// to the next Accept, intact.
func TestAcceptCallCutHandsConnectionOn(t *testing.T) {
	n, l := bindLoopback(t)
	defer l.Close()
	si, st, err := n.Dial(l.Addr()) // queued in the kernel
	if err != nil {
		t.Fatal(err)
	}
	defer si.Close()
	defer st.Close()
	cut := tcp.NewAccept(l)
	tcp.SetOnKernel(l, func() { cut.Interrupt() })
	if _, _, _, err := cut.Accept(); !errors.Is(err, tcp.ErrInterrupted) {
		t.Fatalf("the Accept cut as the kernel returned: %v, want ErrInterrupted", err)
	}
	tcp.SetOnKernel(l, nil)
	roundTrip(t, si, <-acceptAsync(tcp.NewAccept(l)))
}

// Close closes a connection handed on and not taken.
func TestCloseClosesHandedConnection(t *testing.T) {
	n, l := bindLoopback(t)
	si, st, err := n.Dial(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer si.Close()
	defer st.Close()
	cut := tcp.NewAccept(l)
	tcp.SetOnKernel(l, func() { cut.Interrupt() })
	cut.Accept()
	l.Close()
	if _, err := st.Recv(1); !errors.Is(err, simrt.ErrRecvFailed) {
		t.Errorf("Recv on a connection whose listener closed before anyone accepted it: %v, want ErrRecvFailed", err)
	}
}
