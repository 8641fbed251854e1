package faulty

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

var opNames = [numOps]string{
	opOpen:         "storage_open",
	opRead:         "storage_read",
	opWrite:        "storage_write",
	opSync:         "storage_sync",
	opResize:       "storage_resize",
	opRemove:       "storage_remove",
	opScan:         "storage_scan",
	opCrashLost:    "crash_lost_write",
	opCrashTorn:    "crash_torn_write",
	opDiskFail:     "disk_fail",
	opDiskFull:     "disk_full",
	opDiskReadOnly: "disk_readonly",
	opDiskSlow:     "disk_slow",
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
// "disk_fail", "disk_full" and "disk_readonly" count the operations a
// DiskFault failed, "disk_slow" those it delayed.
func (s *Storage) Faults() map[string]uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]uint64)
	for o, n := range s.counts {
		if n > 0 {
			out[opNames[o]] = n
		}
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
