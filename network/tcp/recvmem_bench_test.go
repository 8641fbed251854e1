package tcp_test

import (
	"errors"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
)

// BenchmarkRecvMemoryFlood is 16 peers that each send a 32 MiB frame but
// its last byte, to a server whose 16 Recvs of 32 MiB wait for them: the
// live heap while they wait (after a GC), and how many Recvs failed with
// ErrRecvMemory, without a bound on receive memory (MaxRecvMemory 1 TiB)
// and with the default one (256 MiB). Run with -benchtime 1x.
func BenchmarkRecvMemoryFlood(b *testing.B) {
	for _, c := range []struct {
		name string
		max  int
	}{{"unbounded", 1 << 40}, {"default", 0}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				live, refused := recvFlood(b, tcp.Config{MaxRecvMemory: c.max})
				b.ReportMetric(float64(live>>20), "live-MiB")
				b.ReportMetric(float64(refused), "ErrRecvMemory")
			}
		})
	}
}

func recvFlood(b *testing.B, cfg tcp.Config) (live uint64, refused int) {
	const conns, frame = 16, 32 << 20
	n := tcp.New(cfg)
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	msg := make([]byte, frame-1)
	release := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range conns {
		si, st, err := n.Dial(l.Addr())
		if err != nil {
			b.Fatal(err)
		}
		_, asi, ast, err := l.Accept()
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			si.Send(msg)
			<-release
			si.Close()
			st.Close()
		}()
		go func() {
			defer wg.Done()
			_, err := ast.Recv(frame)
			if errors.Is(err, simrt.ErrRecvMemory) {
				mu.Lock()
				refused++
				mu.Unlock()
			}
			ast.Close()
			asi.Close()
		}()
	}
	time.Sleep(500 * time.Millisecond) // the frames arrive
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	close(release)
	wg.Wait()
	return ms.HeapAlloc, refused
}
