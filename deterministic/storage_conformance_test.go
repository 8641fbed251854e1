package deterministic_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/storagetest"
)

// TestStorageConformance runs the storage suite on the simulator's storage
// (scheduling points, metered, audited, faulty with no faults, memory),
// from the root task, as system code uses it.
func TestStorageConformance(t *testing.T) {
	storagetest.RunIn(t, func(t *testing.T, body func(simrt.Storage)) {
		deterministic.Seeded(1).Start(func(ctx *deterministic.Context) { body(ctx) })
	})
}
