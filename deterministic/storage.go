package deterministic

// Placeholder wiring until the storage stack (issue 3) lands in this file.
// The storage engineer owns this file and replaces everything in it; the
// executor relies only on: type StorageFaults, type storageState (a field of
// runtime), type storageCheckpoint (a field of Checkpoint),
// (*runtime).initStorage(cp *Checkpoint) called when a runtime is built, and
// (*runtime).crashStorage() storageCheckpoint called after every task has
// been unwound.

import (
	"errors"

	"github.com/simrt/simrt"
)

// StorageFaults configures injected storage faults. The zero value injects
// none.
type StorageFaults struct{}

type storageState struct{}

type storageCheckpoint struct{}

func (rt *runtime) initStorage(cp *Checkpoint) {}

func (rt *runtime) crashStorage() storageCheckpoint { return storageCheckpoint{} }

var errNoStorage = errors.New("deterministic: storage not wired yet")

// Open implements simrt.Storage.Open.
func (c *Context) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	return nil, 0, errNoStorage
}

// OpenVersioned implements simrt.Storage.OpenVersioned.
func (c *Context) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	return nil, 0, 0, errNoStorage
}

// Remove implements simrt.Storage.Remove.
func (c *Context) Remove(partition string, name []byte) error { return errNoStorage }

// Scan implements simrt.Storage.Scan.
func (c *Context) Scan(partition string) ([][]byte, error) { return nil, errNoStorage }

// RemovePartition implements simrt.Storage.RemovePartition.
func (c *Context) RemovePartition(partition string) error { return errNoStorage }
