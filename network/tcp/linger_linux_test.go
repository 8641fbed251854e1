//go:build linux && (amd64 || arm64)

package tcp_test

import (
	"net/netip"
	"syscall"
	"testing"
	"unsafe"

	"github.com/simrt/simrt/network/tcp"
)

// The default close is graceful: no connection, dialled or accepted, has
// SO_LINGER on. Config.AbortiveClose sets SO_LINGER 0 on both, so that
// their close resets the connection. (nettest's CloseAfterSendDeliversAll
// checks what a graceful close delivers; this checks that the opt-in still
// asks the kernel for the reset.)
func TestCloseIsGracefulUnlessAbortive(t *testing.T) {
	for _, abortive := range []bool{false, true} {
		n := tcp.New(tcp.Config{AbortiveClose: abortive})
		l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
		if err != nil {
			t.Fatal(err)
		}
		si, st, err := n.Dial(l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		_, asi, ast, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		for _, end := range []struct {
			name string
			raw  syscall.RawConn
		}{{"dialled", rawConn(t, tcp.RawConn(si))}, {"accepted", rawConn(t, tcp.RawConn(asi))}} {
			var lg syscall.Linger
			var gerr error
			if err := end.raw.Control(func(fd uintptr) {
				size := uint32(unsafe.Sizeof(lg))
				_, _, e := syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.SOL_SOCKET, syscall.SO_LINGER,
					uintptr(unsafe.Pointer(&lg)), uintptr(unsafe.Pointer(&size)), 0)
				if e != 0 {
					gerr = e
				}
			}); err != nil || gerr != nil {
				t.Fatalf("getsockopt SO_LINGER: %v %v", err, gerr)
			}
			if on := lg.Onoff != 0; on != abortive || lg.Linger != 0 {
				t.Errorf("AbortiveClose %v: the %s connection has SO_LINGER {on %v, %d s}, want {on %v, 0 s}", abortive, end.name, on, lg.Linger, abortive)
			}
		}
		for _, c := range []interface{ Close() error }{si, st, asi, ast, l} {
			c.Close()
		}
	}
}

func rawConn(t *testing.T, c interface {
	SyscallConn() (syscall.RawConn, error)
}) syscall.RawConn {
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}
