package realtime_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/storage/storagetest"
	"github.com/simrt/simrt/suite"
)

// running starts a runtime on dir and returns its root context, valid
// until the test ends (the runtime then shuts down).
func running(t *testing.T, cfg realtime.Config) simrt.Context {
	ctxs := make(chan simrt.Context)
	end := simrt.NewSignal()
	done := make(chan struct{})
	go func() {
		defer close(done)
		start(cfg, func(ctx simrt.Context) {
			ctxs <- ctx
			end.Wait(ctx)
		})
	}()
	t.Cleanup(func() {
		end.Fire(0)
		<-done
	})
	return <-ctxs
}

// TestStorageConformance runs the storage suite on the runtime's storage
// (blob tracking over metered over disk).
func TestStorageConformance(t *testing.T) {
	storagetest.Run(t, production(func(t suite.T) realtime.Config {
		return realtime.Config{StorageDirectory: t.TempDir()}
	}), nil)
}

func TestStorageSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	start(realtime.Config{StorageDirectory: dir}, func(ctx simrt.Context) {
		b, _, err := ctx.Open("log", []byte("a"))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WriteAt(0, simrt.WriteSync, []byte("durable")); err != nil {
			t.Fatal(err)
		}
		// Left open on purpose: the runtime closes it at shutdown.
	})
	start(realtime.Config{StorageDirectory: dir}, func(ctx simrt.Context) {
		b, size, err := ctx.Open("log", []byte("a")) // not "already open"
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		got := make([]byte, size)
		if err := b.ReadAt(got, 0); err != nil || !bytes.Equal(got, []byte("durable")) {
			t.Errorf("after restart: %q, %v", got, err)
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "log", "61")); err != nil {
		t.Errorf("blob file: %v", err)
	}
}

func TestStorageDirectoryMadeOnlyWhenUsed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "unused")
	start(realtime.Config{StorageDirectory: dir}, func(simrt.Context) {})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("storage directory exists (%v) though storage was never used", err)
	}
}
