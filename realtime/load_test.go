package realtime_test

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// TestLoadThousandConnections runs 1,000 concurrent loopback connections
// through the runtime, each exchanging messages with an echo server, and
// then shuts down: every byte sent is received and echoed, every task
// ends, and (TestMain) no goroutine is left behind.
func TestLoadThousandConnections(t *testing.T) {
	const (
		conns    = 1000
		messages = 10
		size     = 64
	)
	var sent, echoed, received atomic.Int64
	var metricsText string
	start(realtime.Config{}, func(ctx simrt.Context) {
		l, err := ctx.Bind(loopback)
		if err != nil {
			t.Fatal(err)
		}
		// The server hands each handler's handle to the root, which awaits
		// them all: a handler's running gauge drops before its handle
		// completes, not before its deferred calls have run.
		handled := simrt.NewUnboundedChan[*simrt.Handle[int]]()
		server := simrt.Spawn(ctx.Child("server"), func(ctx simrt.Context) int {
			handlers := ctx.Child("handler")
			for {
				_, si, st, err := l.Accept()
				if err != nil {
					return 0 // the listener was closed
				}
				handled.TrySend(simrt.Spawn(handlers, func(simrt.Context) int {
					defer si.Close()
					defer st.Close()
					for {
						msg, err := st.Recv(size)
						if err != nil {
							return 0 // the client closed its sink
						}
						if err := si.Send(msg); err != nil {
							t.Errorf("echo: %v", err)
							return 0
						}
						echoed.Add(size)
					}
				}))
			}
		})
		clients := make([]*simrt.Handle[error], conns)
		for i := range clients {
			clients[i] = simrt.Spawn(ctx.Child("client"), func(ctx simrt.Context) error {
				si, st, err := ctx.Dial(l.Addr())
				if err != nil {
					return err
				}
				defer st.Close()
				msg := make([]byte, size)
				for m := range messages {
					binary.BigEndian.PutUint64(msg, uint64(i))
					binary.BigEndian.PutUint64(msg[8:], uint64(m))
					if err := si.Send(msg); err != nil {
						return err
					}
					sent.Add(size)
					got, err := st.Recv(size)
					if err != nil {
						return err
					}
					if string(got) != string(msg) {
						return fmt.Errorf("echo of message %d: got %x", m, got[:16])
					}
					received.Add(size)
				}
				return si.Close() // the server's Recv now fails: its handler ends
			})
		}
		for i, c := range clients {
			if err, aerr := c.Await(ctx); err != nil || aerr != nil {
				t.Errorf("client %d: %v, %v", i, err, aerr)
			}
		}
		// A handler counts its last echo after the client may already have
		// read it: wait until every handler has ended before reading metrics.
		for range conns {
			h, _ := handled.Recv(ctx)
			if _, err := h.Await(ctx); err != nil {
				t.Errorf("handler: %v", err)
			}
		}
		l.Close()
		if _, err := server.Await(ctx); err != nil {
			t.Errorf("server: %v", err)
		}
		metricsText = ctx.Encode()
	})
	const total = conns * messages * size
	if sent.Load() != total || echoed.Load() != total || received.Load() != total {
		t.Errorf("bytes sent %d, echoed %d, received %d; want %d each", sent.Load(), echoed.Load(), received.Load(), total)
	}
	for series, want := range map[string]float64{
		`runtime_tasks_spawned_total{execution="Shared",kind="Task",name="client"}`:   conns,
		`runtime_tasks_running{execution="Shared",kind="Task",name="client"}`:         0,
		`runtime_tasks_running{execution="Shared",kind="Task",name="server_handler"}`: 0,
		"runtime_outbound_connections_total":                                          conns,
		"runtime_inbound_connections_total":                                           conns,
		"runtime_outbound_bandwidth_total":                                            2 * total,
		"runtime_inbound_bandwidth_total":                                             2 * total,
	} {
		if got, ok := metricValue(metricsText, series); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, want)
		}
	}
	if t.Failed() {
		t.Log(metricsText)
	}
}

// metricValue returns the value of the sample named series (with its
// labels, as encoded) in an OpenMetrics text.
func metricValue(text, series string) (float64, bool) {
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}
