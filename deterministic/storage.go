package deterministic

import (
	"math/rand/v2"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/storage/memory"
)

// storageState is the runtime's simulated storage: the stack (see
// storageStack) and its two ends.
type storageState struct {
	mem   *memory.Storage
	fault *faulty.Storage
	stack simrt.Storage
	// recovered is set in a run resumed from a checkpoint: it counts
	// as a crash in Context.Faults.
	recovered bool
}

// storageCheckpoint is the storage a checkpoint carries: durable contents
// after the crash, and the fault configuration as it was then.
type storageCheckpoint struct {
	snap   *memory.Snapshot
	faults faulty.Config
}

// storageStack builds a simulated disk: the shell's stack (scheduling
// points of rt (iopoints.go) → metered → audited) over faulty over memory.
func storageStack(rt *runtime, mem *memory.Storage, rng *rand.Rand, faults faulty.Config, rec shell.Recorder, reg prometheus.Registerer) storageState {
	f := faulty.New(mem, rng, faults)
	points := func(s simrt.Storage) simrt.Storage { return withStoragePoints(s, rt) }
	return storageState{mem: mem, fault: f, stack: shell.StorageStack(f, rec, reg, points)}
}

// initStorage builds the storage of a new runtime: empty with the
// configured faults, or the checkpoint's durable contents and faults.
func (rt *runtime) initStorage(cp *Checkpoint) {
	if cp == nil {
		rt.storage = storageStack(rt, memory.New(), rt.rng, rt.cfg.StorageFaults, rt.auditor, rt.sh.Registry.Registerer())
		return
	}
	rt.storage = storageStack(rt, memory.Restore(cp.storage.snap), rt.rng, cp.storage.faults, rt.auditor, rt.sh.Registry.Registerer())
	rt.storage.recovered = true
}

// crashStorage crashes the storage once no task can touch it (unsynced
// writes resolved by the fault configuration, drawing from the runtime's
// generator) and snapshots what is durable.
func (rt *runtime) crashStorage() storageCheckpoint {
	if rt.storage.fault == nil {
		return storageCheckpoint{}
	}
	if err := rt.storage.fault.Crash(); err != nil {
		panic("deterministic: storage crash: " + err.Error())
	}
	return storageCheckpoint{snap: rt.storage.mem.Snapshot(), faults: *rt.storage.fault.Config()}
}

// Storage implements shell.Backend: the storage a context's operations go
// to is its node process's disk, or the runtime's.
func (rt *runtime) Storage(c *shell.Context) simrt.Storage {
	if p := ctxOf(c).proc; p != nil {
		return p.stor
	}
	return rt.storage.stack
}

// StorageFaultConfig returns the live storage fault configuration: a change
// through the pointer applies from the next storage operation, and the
// configuration as it is when the run ends is what a checkpoint resumes
// with. The pointer must not be used after the run.
func (c *Context) StorageFaultConfig() *faulty.Config {
	c.rt.check()
	return c.rt.storage.fault.Config()
}

// StorageAudit returns a digest of the durable contents of every blob. It
// changes with synced data only: two runs that leave the same durable
// state have the same digest.
func (c *Context) StorageAudit() memory.Digest {
	c.rt.check()
	return c.rt.storage.mem.Audit()
}

// LogicalBlob returns a copy of a blob's durable logical contents without
// opening it, or false when the blob is missing or its header does not
// resolve. It is meant for tests.
func (c *Context) LogicalBlob(partition string, name []byte) ([]byte, bool) {
	c.rt.check()
	return c.rt.storage.mem.LogicalBlob(partition, name)
}

// StoragePending returns the number of entries of the storage crash
// journal: unsynced writes and resizes that the crash ending the run may
// still keep under the fault configuration's retention policy, and
// StartSync markers not yet applied. A sync, an overlapping WriteSync
// write, a reopen or a removal retires the entries it makes moot. With no
// retention configured, unsynced writes are never journaled (a crash loses
// them all) and it stays zero. It is meant for tests.
func (c *Context) StoragePending() int {
	c.rt.check()
	return c.rt.storage.fault.Pending()
}
