package realtime

import (
	"errors"

	"github.com/simrt/simrt"
)

// initStorage wires the production storage. Placeholder until storage/disk
// lands: every operation fails.
func (rt *runtime) initStorage() {}

var errNoStorage = errors.New("realtime: storage not wired yet")

// Open implements simrt.Storage.Open.
func (c *Context) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	c.rt.check()
	if c.rt.storage == nil {
		return nil, 0, errNoStorage
	}
	return c.rt.storage.Open(partition, name)
}

// OpenVersioned implements simrt.Storage.OpenVersioned.
func (c *Context) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	c.rt.check()
	if c.rt.storage == nil {
		return nil, 0, 0, errNoStorage
	}
	return c.rt.storage.OpenVersioned(partition, name, versions)
}

// Remove implements simrt.Storage.Remove.
func (c *Context) Remove(partition string, name []byte) error {
	c.rt.check()
	if c.rt.storage == nil {
		return errNoStorage
	}
	return c.rt.storage.Remove(partition, name)
}

// RemovePartition implements simrt.Storage.RemovePartition.
func (c *Context) RemovePartition(partition string) error {
	c.rt.check()
	if c.rt.storage == nil {
		return errNoStorage
	}
	return c.rt.storage.RemovePartition(partition)
}

// Scan implements simrt.Storage.Scan.
func (c *Context) Scan(partition string) ([][]byte, error) {
	c.rt.check()
	if c.rt.storage == nil {
		return nil, errNoStorage
	}
	return c.rt.storage.Scan(partition)
}
