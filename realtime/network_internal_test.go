package realtime

import (
	"net/netip"
	"testing"

	"github.com/simrt/simrt/network/tcp"
)

// TestDeviceInterrupts checks that the device under the interruption
// layer, network/tcp, gives listeners and halves that are interrupters
// (ioTarget.init panics otherwise), and that Interrupt cuts them as the
// layer expects: a listener closes, a half shuts down.
func TestDeviceInterrupts(t *testing.T) {
	n := tcp.New(tcp.Config{})
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	si, st, err := n.Dial(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer si.Close()
	defer st.Close()
	_, psi, pst, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer psi.Close()
	defer pst.Close()
	for _, v := range []any{l, si, st} {
		if _, ok := v.(interrupter); !ok {
			t.Fatalf("tcp's %T has no Interrupt method", v)
		}
	}
	st.(interrupter).Interrupt()
	if _, err := st.Recv(1); err == nil {
		t.Error("Recv on an interrupted stream succeeded")
	}
	si.(interrupter).Interrupt()
	if err := si.Send([]byte{1}); err == nil {
		t.Error("Send on an interrupted sink succeeded")
	}
	l.(interrupter).Interrupt()
	if _, _, _, err := l.Accept(); err == nil {
		t.Error("Accept on an interrupted listener succeeded")
	}
}
