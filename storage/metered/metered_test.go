package metered_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/memory"
	"github.com/simrt/simrt/storage/metered"
	"github.com/simrt/simrt/storage/storagetest"
	"github.com/simrt/simrt/suite"
)

// simulator runs each conformance case as the root task of a fresh
// simulation.
var simulator = suite.Runtime{
	Simulated: true,
	Stalled:   deterministic.ErrStalled,
	TimedOut:  deterministic.ErrRunTimeout,
	Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
		cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
	},
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, simulator, func(storagetest.T, simrt.Context) simrt.Storage {
		return metered.New(memory.New(), prometheus.NewRegistry())
	})
}

func gather(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			if m.Gauge != nil {
				return m.Gauge.GetValue()
			}
			return m.Counter.GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

func TestOpenBlobsReturnsToZeroAfterClose(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := metered.New(memory.New(), reg)
	a, _, _ := s.Open("p", []byte("a"))
	b, _, _, _ := s.OpenVersioned("p", []byte("b"), simrt.VersionRange{})
	if _, _, err := s.Open("p", []byte("a")); err == nil {
		t.Fatal("second open succeeded")
	}
	if got := gather(t, reg, "runtime_open_blobs"); got != 2 {
		t.Fatalf("open blobs %v, want 2 (a refused open does not count)", got)
	}
	s.Remove("p", []byte("a"))
	a.Close()
	a.Close()
	b.Close()
	if got := gather(t, reg, "runtime_open_blobs"); got != 0 {
		t.Fatalf("open blobs %v after closing every handle, want 0", got)
	}
}

func TestCounters(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := metered.New(memory.New(), reg)
	b, _, _ := s.Open("p", []byte("a"))
	b.WriteAt(0, 0, []byte("hello"), []byte(" world"))
	b.WriteAt(0, simrt.WriteSync, []byte("H"))
	b.ReadAt(make([]byte, 5), 0)
	b.ReadAt(make([]byte, 50), 0) // fails, still counted
	b.Resize(3)
	b.Sync()
	b.StartSync()
	for name, want := range map[string]float64{
		"runtime_storage_writes_total":      2,
		"runtime_storage_write_bytes_total": 12,
		"runtime_storage_reads_total":       2,
		"runtime_storage_read_bytes_total":  55,
		"runtime_storage_resizes_total":     1,
		"runtime_storage_syncs_total":       3,
	} {
		if got := gather(t, reg, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

func TestSharedRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := metered.New(memory.New(), reg)
	b := metered.New(memory.New(), reg)
	x, _, _ := a.Open("p", []byte("x"))
	y, _, _ := b.Open("p", []byte("y"))
	if mfs, _ := reg.Gather(); len(mfs) != 7 {
		t.Fatalf("%d metric families, want 7", len(mfs))
	}
	if got := gather(t, reg, "runtime_open_blobs"); got != 2 {
		t.Fatalf("open blobs %v, want 2", got)
	}
	x.Close()
	y.Close()
}
