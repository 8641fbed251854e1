package faulty

import "github.com/simrt/simrt/fault"

// op names a kind of injected storage fault, for Storage.Faults.
type op int

const (
	opOpen op = iota
	opRead
	opWrite
	opSync
	opResize
	opRemove
	opScan
	opCrashLost    // unsynced journaled write of which a crash kept nothing
	opCrashTorn    // unsynced journaled write kept only in part at a crash
	opDiskFail     // operation failed by DiskFault.Fail
	opDiskFull     // operation failed by DiskFault.Full
	opDiskReadOnly // operation failed by DiskFault.ReadOnly
	opDiskSlow     // operation delayed by DiskFault.Slow
	numOps
)

var opNames = [numOps]fault.Name{
	opOpen:         fault.StorageOpen,
	opRead:         fault.StorageRead,
	opWrite:        fault.StorageWrite,
	opSync:         fault.StorageSync,
	opResize:       fault.StorageResize,
	opRemove:       fault.StorageRemove,
	opScan:         fault.StorageScan,
	opCrashLost:    fault.CrashLostWrite,
	opCrashTorn:    fault.CrashTornWrite,
	opDiskFail:     fault.DiskFail,
	opDiskFull:     fault.DiskFull,
	opDiskReadOnly: fault.DiskReadOnly,
	opDiskSlow:     fault.DiskSlow,
}

// fail counts an injected failure of kind o and returns it. Called with
// s.mu held.
func (s *Storage) fail(o op) error {
	s.counts[o]++
	return injected()
}

// Faults returns how many faults the storage has injected so far, by kind,
// leaving out kinds it has not injected: "storage_open", "storage_read",
// "storage_write", "storage_sync" (Sync, StartSync and the sync of a
// WriteSync write), "storage_resize", "storage_remove" (Remove and
// RemovePartition) and "storage_scan" count failed operations (a poisoned
// handle's repeated error is not counted again); "crash_lost_write" and
// "crash_torn_write" count journaled unsynced writes of which a Crash kept
// no byte or only some bytes. Unsynced writes that were never journaled (no
// retention configured) are lost at a crash without being counted.
// fault.DiskFail, DiskFull and DiskReadOnly ("disk-fail", "disk-full",
// "disk-readonly", the nemesis's names for the faults; "disk_fail" and so
// on before) count the operations a DiskFault failed, fault.DiskSlow
// ("disk-slow") those it delayed.
func (s *Storage) Faults() fault.Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := fault.Counts{}
	for o, n := range s.counts {
		out.Add(opNames[o], n)
	}
	return out
}

// countRetained counts, at a crash, a journaled write whose retention
// selection kept the bytes with keep[i] true (every byte when keep is nil).
func (s *Storage) countRetained(keep []bool, e *Effect) {
	kept := 0
	for _, k := range keep {
		if k {
			kept++
		}
	}
	switch {
	case keep == nil || kept == len(keep):
	case kept == 0:
		s.counts[opCrashLost]++
		e.Lost++
	default:
		s.counts[opCrashTorn]++
		e.Torn++
	}
}
