package deterministic

import (
	"time"

	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/telemetry/audit"
)

// SetDiskFault switches the fault of the context's disk (the storage its
// Open and friends reach: its node's disk inside a node, the runtime's
// otherwise) to f, from the next storage operation on; the zero value heals
// it. Node.Storage().SetDiskFault does the same from outside the node.
// DiskFault.Slow delays each operation in simulated time: the calling task
// sleeps. The call is recorded by the auditor, so it is part of the run's
// fingerprint (runs that never call it are not changed). Operations a disk
// fault fails draw nothing from the generator. What the fault did is in
// FaultEffects and its counts in Faults (fault.DiskFail, DiskFull,
// DiskReadOnly, DiskSlow: "disk-fail", "disk-full", "disk-readonly",
// "disk-slow"). A checkpoint does not carry the fault: a
// recovered run starts with a healthy disk.
func (c *Context) SetDiskFault(f faulty.DiskFault) {
	c.rt.check()
	d := c.disk()
	if c.proc == nil {
		c.rt.wireFaulty(d, "") // nodes' disks are wired at AddNode
	}
	d.SetDiskFault(f)
}

// DiskFault returns the current fault of the context's disk.
func (c *Context) DiskFault() faulty.DiskFault {
	c.rt.check()
	return c.disk().DiskFault()
}

// disk is the fault layer of the context's disk.
func (c *Context) disk() *faulty.Storage {
	if c.proc != nil {
		return c.proc.n.disk.st.fault
	}
	return c.rt.storage.fault
}

// wireFaulty connects a faulty storage to the runtime: its disk-fault
// changes are audited (with the node's name first, for a node's disk),
// DiskFault.Slow sleeps the calling task in simulated time (the global
// clock: a disk is slow in real time, whatever a node's clock says), and
// its effects are dated by the simulated clock. It only sets hooks: a
// storage that is wired but never given a disk fault behaves, draws and
// audits as before. Calling it again is harmless.
func (rt *runtime) wireFaulty(f *faulty.Storage, node string) {
	var rec faulty.Recorder = rt.auditor
	if node != "" {
		rec = nodeRecorder{rt.auditor, []byte(node)}
	}
	f.SetRecorder(rec)
	f.SetSleep(func(d time.Duration) {
		rt.check()
		rt.sleepUntil(addTime(rt.now, max(d, 0)))
	})
	f.SetClock(func() time.Time { return time.Unix(0, rt.now).UTC() })
}

// nodeRecorder records a node's storage events with the node's name as
// their first field.
type nodeRecorder struct {
	a    *Auditor
	node []byte
}

func (r nodeRecorder) Event(label audit.Label, fields ...[]byte) {
	r.a.Event(label, append([][]byte{r.node}, fields...)...)
}

// DiskControls is a node's disk as a test controls it (Node.Storage): its
// live fault configuration, its disk fault, its crash journal and what its
// faults did. It has no storage operations: blobs are opened through the
// node's contexts, whose stack schedules, meters and audits them.
type DiskControls struct{ f *faulty.Storage }

// Config returns the disk's live storage fault configuration (see
// Context.StorageFaultConfig).
func (d DiskControls) Config() *faulty.Config { return d.f.Config() }

// SetDiskFault switches the disk's fault; the zero value heals it (see
// Context.SetDiskFault).
func (d DiskControls) SetDiskFault(f faulty.DiskFault) { d.f.SetDiskFault(f) }

// DiskFault returns the disk's current fault.
func (d DiskControls) DiskFault() faulty.DiskFault { return d.f.DiskFault() }

// Pending returns the number of entries of the disk's crash journal (see
// Context.StoragePending).
func (d DiskControls) Pending() int { return d.f.Pending() }

// Faults returns the disk's fault counts by kind (see faulty.Storage.Faults).
func (d DiskControls) Faults() fault.Counts { return d.f.Faults() }

// Effects returns what the disk's faults did, in order (see
// faulty.Storage.Effects).
func (d DiskControls) Effects() []faulty.Effect { return d.f.Effects() }
