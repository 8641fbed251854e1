package tcp_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
)

// MaxConns bounds a network's open connections, dialled and accepted: at
// the bound a Dial fails at once with ErrConnLimit (naming MaxConns), and
// a connection the kernel accepts is closed at once (its peer's Recv
// fails) while Accept waits for the next; closing both halves of an open
// connection makes room again.
func TestMaxConnsBoundsOpenConnections(t *testing.T) {
	server := tcp.New(tcp.Config{MaxConns: 1})
	client := tcp.New(tcp.Config{})
	l, err := server.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type accepted struct {
		si  simrt.Sink
		st  simrt.Stream
		err error
	}
	accepts := make(chan accepted, 1)
	acceptOne := func() {
		go func() {
			_, si, st, err := l.Accept()
			accepts <- accepted{si, st, err}
		}()
	}

	acceptOne()
	csi1, cst1, err := client.Dial(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	first := <-accepts
	if first.err != nil {
		t.Fatal(first.err)
	}

	// At the bound, the server's own Dial fails at once.
	_, _, err = server.Dial(l.Addr())
	if !errors.Is(err, simrt.ErrConnLimit) || !errors.Is(err, simrt.ErrConnectionFailed) || !strings.Contains(err.Error(), "MaxConns") {
		t.Errorf("Dial at MaxConns: %v, want ErrConnLimit naming MaxConns", err)
	}

	// A second client is refused: its connection is closed at once, and
	// the server's Accept goes on waiting.
	acceptOne()
	csi2, cst2, err := client.Dial(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cst2.Recv(1); !errors.Is(err, simrt.ErrRecvFailed) {
		t.Errorf("Recv on a connection refused past MaxConns: %v, want ErrRecvFailed", err)
	}
	csi2.Close()
	cst2.Close()
	select {
	case a := <-accepts:
		t.Fatalf("Accept past MaxConns returned %v, want it to go on waiting", a.err)
	case <-time.After(20 * time.Millisecond):
	}

	// Closing the first connection makes room for the next one.
	first.si.Close()
	first.st.Close()
	csi3, cst3, err := client.Dial(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	third := <-accepts
	if third.err != nil {
		t.Fatalf("Accept once a connection was closed: %v", third.err)
	}
	if err := csi3.Send([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := third.st.Recv(1); err != nil || string(b) != "x" {
		t.Errorf("Recv on the connection accepted once there was room: %q, %v", b, err)
	}
	for _, c := range []interface{ Close() error }{csi1, cst1, csi3, cst3, third.si, third.st} {
		c.Close()
	}
}
