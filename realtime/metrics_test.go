package realtime_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// metricsWith serves metrics on loopback with the given limits; a zero
// timeout is a long one (a loaded machine must not trip it), so that a
// test sees only the limit it sets act.
func metricsWith(m realtime.MetricsConfig) realtime.Config {
	for _, d := range []*time.Duration{&m.ReadHeaderTimeout, &m.IdleTimeout, &m.WriteTimeout} {
		if *d == 0 {
			*d = bound
		}
	}
	return realtime.Config{MetricsAddr: "127.0.0.1:0", Metrics: m}
}

// closedByServer reports whether the server closes c (a read ends with
// io.EOF) within bound; the bound only stops a test that would hang.
func closedByServer(t *testing.T, c net.Conn, r io.Reader) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(bound / 2))
	_, err := r.Read(make([]byte, 1))
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
	case err == nil:
		t.Error("the server sent bytes on an idle connection")
	default:
		t.Errorf("the server left an idle connection open (%v)", err)
	}
}

// TestMetricsEndpointClosesIdleConnections: a connection that sends no
// request, and a kept-alive one idle after a scrape, are closed by the
// server (before Config.Metrics, the second stayed open for ever).
func TestMetricsEndpointClosesIdleConnections(t *testing.T) {
	t.Run("silent", func(t *testing.T) { // connects and never sends a request
		start(metricsWith(realtime.MetricsConfig{ReadHeaderTimeout: 50 * time.Millisecond}), func(ctx simrt.Context) {
			c, err := net.Dial("tcp", realtime.From(ctx).MetricsAddr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			closedByServer(t, c, c)
		})
	})
	t.Run("kept-alive", func(t *testing.T) { // idle after a scrape
		start(metricsWith(realtime.MetricsConfig{IdleTimeout: 50 * time.Millisecond}), func(ctx simrt.Context) {
			c, err := net.Dial("tcp", realtime.From(ctx).MetricsAddr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fmt.Fprint(c, "GET /metrics HTTP/1.1\r\nHost: metrics\r\n\r\n")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Close {
				t.Fatalf("scrape: status %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
			}
			closedByServer(t, c, br)
		})
	})
}

func TestMetricsEndpointLimitsHeaderSize(t *testing.T) {
	start(metricsWith(realtime.MetricsConfig{MaxHeaderBytes: 1 << 10}), func(ctx simrt.Context) {
		addr := realtime.From(ctx).MetricsAddr().String()
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.Header.Set("X-Filler", strings.Repeat("x", 8<<10)) // past 1 KiB and net/http's 4 KiB slack
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("status %d for an 8 KiB header, want %d", resp.StatusCode, http.StatusRequestHeaderFieldsTooLarge)
		}
	})
}

// TestStartReportsBusyMetricsPort: a metrics address in use makes Start
// return an error, naming the address and wrapping the operating system's,
// without running the root.
func TestStartReportsBusyMetricsPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ran := false
	_, err = realtime.New(realtime.Config{MetricsAddr: ln.Addr().String(), Logger: quietLogger()}).
		Start(func(simrt.Context) { ran = true })
	if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(fmt.Sprint(err), ln.Addr().String()) {
		t.Errorf("Start = %v, want an error naming %s and wrapping EADDRINUSE", err, ln.Addr())
	}
	if ran {
		t.Error("the root ran although the runtime could not be set up")
	}
}
