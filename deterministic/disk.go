package deterministic

import (
	"time"

	"github.com/simrt/simrt/storage/faulty"
)

// DiskFault is a standing fault of a simulated disk: slow, failing (EIO),
// full (ENOSPC) or read-only (EROFS). See faulty.DiskFault.
type DiskFault = faulty.DiskFault

// SetDiskFault switches the fault of the runtime's disk (the storage of
// Context.Open and friends) to f, from the next storage operation on; the
// zero value heals it. DiskFault.Slow delays each operation in simulated
// time: the calling task sleeps. The call is recorded by the auditor, so it
// is part of the run's fingerprint (runs that never call it are not
// changed). Operations a disk fault fails draw nothing from the generator.
// What the fault did is in FaultEffects and its counts in Faults
// ("disk_fail", "disk_full", "disk_readonly", "disk_slow"). A checkpoint
// does not carry the fault: a recovered run starts with a healthy disk.
func (c *Context) SetDiskFault(f DiskFault) {
	c.rt.check()
	c.rt.wireFaulty(c.rt.storage.fault)
	c.rt.storage.fault.SetDiskFault(f)
}

// DiskFault returns the current fault of the runtime's disk.
func (c *Context) DiskFault() DiskFault {
	c.rt.check()
	return c.rt.storage.fault.DiskFault()
}

// wireFaulty connects a faulty storage to the runtime: its disk-fault
// changes are audited, DiskFault.Slow sleeps the calling task in simulated
// time (the global clock: a disk is slow in real time, whatever a node's
// clock says), and its effects are dated by the simulated clock. It only
// sets hooks: a storage that is wired but never given a disk fault behaves,
// draws and audits as before. Calling it again is harmless.
func (rt *runtime) wireFaulty(f *faulty.Storage) {
	f.SetRecorder(rt.auditor)
	f.SetSleep(func(d time.Duration) {
		rt.check()
		rt.sleepUntil(addTime(rt.now, max(d, 0)))
	})
	f.SetClock(func() time.Time { return time.Unix(0, rt.now).UTC() })
}
