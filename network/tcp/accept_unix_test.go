//go:build unix

package tcp_test

import (
	"errors"
	"net/netip"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
)

// childEnv marks the re-executed test binary that runs with a low
// descriptor limit.
const childEnv = "SIMRT_TCP_ACCEPT_EMFILE_CHILD"

// Out of file descriptors, Accept waits and retries instead of failing: a
// child process (this test binary, re-executed) lowers RLIMIT_NOFILE,
// fills its descriptor table with a connection pending, sees Accept back
// off on EMFILE, frees one descriptor, and gets the connection.
func TestAcceptRetriesOutOfDescriptors(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		acceptOutOfDescriptors(t, tcp.New(tcp.Config{}), func(f func()) { go f() })
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAcceptRetriesOutOfDescriptors$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("child process: %v\n%s", err, out)
		return
	}
}

// acceptOutOfDescriptors is the child's side of
// TestAcceptRetriesOutOfDescriptors; goAccept starts the Accept
// concurrently. It may run on a task's goroutine, so it reports with Error
// and returns.
func acceptOutOfDescriptors(t *testing.T, n *tcp.Network, goAccept func(func())) {
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Error(err)
		return
	}
	defer l.Close()
	si, st, err := n.Dial(l.Addr()) // pending in the kernel's accept queue
	if err != nil {
		t.Error(err)
		return
	}
	defer si.Close()
	defer st.Close()

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Error(err)
		return
	}
	low := old
	low.Cur = min(old.Cur, 256)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Errorf("setrlimit: %v", err)
		return
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	var fill []*os.File
	defer func() {
		for _, f := range fill {
			f.Close()
		}
	}()
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			if !errors.Is(err, syscall.EMFILE) {
				t.Errorf("filling the descriptor table: %v", err)
				return
			}
			break
		}
		fill = append(fill, f)
	}
	if len(fill) == 0 {
		t.Error("no descriptor could be opened under the low limit")
		return
	}

	backedOff := make(chan error, 1)
	tcp.SetOnBackoff(l, func(err error) {
		select {
		case backedOff <- err:
		default:
		}
	})
	type result struct {
		sink simrt.Sink
		st   simrt.Stream
		err  error
	}
	accepted := make(chan result, 1)
	goAccept(func() {
		_, si, st, err := l.Accept()
		accepted <- result{si, st, err}
	})
	select {
	case err := <-backedOff:
		if !errors.Is(err, syscall.EMFILE) {
			t.Errorf("Accept backed off on %v, want EMFILE", err)
		}
	case r := <-accepted:
		t.Errorf("Accept with no descriptor free returned (%v), want it to wait", r.err)
		return
	}
	fill[len(fill)-1].Close() // one descriptor free: the retry takes it
	fill = fill[:len(fill)-1]
	r := <-accepted
	if r.err != nil {
		t.Errorf("Accept after a descriptor was freed: %v", r.err)
		return
	}
	defer r.sink.Close()
	defer r.st.Close()
	if err := si.Send([]byte("x")); err != nil {
		t.Errorf("Send on the dialed end: %v", err)
		return
	}
	if b, err := r.st.Recv(1); err != nil || string(b) != "x" {
		t.Errorf("Recv on the accepted end = %q, %v; want \"x\"", b, err)
		return
	}
}
