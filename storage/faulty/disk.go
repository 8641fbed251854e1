package faulty

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/telemetry/audit"
)

// ErrDiskFailed is the cause of the errors of a failing disk
// (DiskFault.Fail): EIO.
var ErrDiskFailed = errors.New("disk failed")

// ErrNoSpace is the cause of the errors of a full disk (DiskFault.Full):
// ENOSPC.
var ErrNoSpace = errors.New("no space left on device")

// ErrReadOnly is the cause of the errors of a read-only disk
// (DiskFault.ReadOnly): EROFS.
var ErrReadOnly = errors.New("read-only file system")

// DiskFault is a standing fault of the whole disk, switched on and off at
// run time with Storage.SetDiskFault. Unlike the rates of Config it draws
// nothing from the generator: an operation it fails fails before any draw
// and never reaches the wrapped storage, so synced data is never lost to
// it. The zero value is a healthy disk. When several fields are set, Fail
// wins over ReadOnly, and ReadOnly over Full.
//
// Every error of a disk fault matches simrt.ErrIO, ErrInjected and the
// fault's own cause (ErrDiskFailed, ErrNoSpace, ErrReadOnly), so callers
// can tell them apart with errors.Is.
type DiskFault struct {
	// Slow makes every operation (Open, OpenVersioned, ReadAt, WriteAt,
	// Resize, Sync, StartSync, Remove, RemovePartition, Scan; not Close)
	// take this long before it starts: the calling task sleeps through the
	// function given to Storage.SetSleep. Zero, or no sleep function, adds
	// nothing.
	Slow time.Duration
	// Fail makes every operation but Close fail (EIO). A failed Sync or
	// StartSync poisons its handle, as any failed sync does (see the
	// package documentation); a failed WriteAt writes nothing and does not.
	Fail bool
	// Full makes every WriteAt that ends past the blob's size, every
	// Resize that grows it, and every Open or OpenVersioned that would
	// create a blob (it writes the blob's header) fail (ENOSPC); a failed
	// creation leaves no name. Writes within the blob, shrinking resizes,
	// reads, syncs, opens of existing blobs and removals work.
	Full bool
	// ReadOnly makes every mutation fail (EROFS): WriteAt, Resize, Remove,
	// RemovePartition, an Open or OpenVersioned that would create a blob,
	// and a Sync or StartSync of a handle holding unsynced writes or
	// resizes (which poisons it). Reads, Scan, opens of existing blobs and
	// syncs of clean handles work.
	ReadOnly bool
}

// IsZero reports whether f is a healthy disk.
func (f DiskFault) IsZero() bool { return f == DiskFault{} }

// String describes f in one line, "healthy" for the zero value, otherwise
// the set fields: "slow=5ms fail full read-only".
func (f DiskFault) String() string {
	var parts []string
	if f.Slow > 0 {
		parts = append(parts, "slow="+f.Slow.String())
	}
	for _, s := range []struct {
		on   bool
		name string
	}{{f.Fail, "fail"}, {f.Full, "full"}, {f.ReadOnly, "read-only"}} {
		if s.on {
			parts = append(parts, s.name)
		}
	}
	if len(parts) == 0 {
		return "healthy"
	}
	return strings.Join(parts, " ")
}

// Recorder receives a Storage's control events (see SetRecorder). The
// simulator's auditor is one.
type Recorder interface {
	Event(label audit.Label, fields ...[]byte)
}

// SetDiskFault switches the disk fault to f, from the next operation on
// (an operation already sleeping for Slow completes under the fault it
// checks after its sleep). The zero value heals the disk. Each call is
// recorded on the Recorder, if any, as audit.StorageDiskFault with f's
// String, and, unless f is the zero value, starts a new Effect.
func (s *Storage) SetDiskFault(f DiskFault) {
	if f.Slow < 0 {
		f.Slow = 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disk = f
	s.diskEffect = -1
	if !f.IsZero() {
		s.diskEffect = s.addEffect(fault.DiskFault, f.String())
	}
	if s.rec != nil {
		s.rec.Event(audit.StorageDiskFault, []byte(f.String()))
	}
}

// DiskFault returns the current disk fault.
func (s *Storage) DiskFault() DiskFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disk
}

// SetSleep sets how an operation waits out DiskFault.Slow: sleep parks the
// calling task for the given duration (in the simulator, in simulated
// time). With nil, the default, Slow is ignored.
func (s *Storage) SetSleep(sleep func(time.Duration)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sleep = sleep
}

// SetRecorder sets where control events (SetDiskFault) are recorded; nil,
// the default, records nothing. Operations are not recorded here: audit
// them by wrapping the Storage (package audited).
func (s *Storage) SetRecorder(rec Recorder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rec = rec
}

// diskSlow waits out DiskFault.Slow before an operation, without holding
// s.mu, and counts the operation as slowed. Called without s.mu held.
func (s *Storage) diskSlow() {
	s.mu.Lock()
	d, sleep := s.disk.Slow, s.sleep
	if d > 0 && sleep != nil {
		s.counts[opDiskSlow]++
		s.effect(s.diskEffect).Slowed++
	}
	s.mu.Unlock()
	if d > 0 && sleep != nil {
		sleep(d)
	}
}

// diskAccess is what an operation does to the disk, for diskErr.
type diskAccess uint8

const (
	diskRead   diskAccess = iota // reads: fail only on a failed disk
	diskGrow                     // a mutation that takes more space
	diskMutate                   // a mutation that takes no more space
	diskSync                     // a sync: a mutation only of a dirty handle
)

// diskErr returns the error with which the disk fault fails an operation
// doing a (dirty: the handle holds unsynced mutations), or nil. It counts
// the failure. Called with s.mu held.
func (s *Storage) diskErr(a diskAccess, dirty bool) error {
	f := &s.disk
	var o op
	var cause error
	switch {
	case f.Fail:
		o, cause = opDiskFail, ErrDiskFailed
	case f.ReadOnly && (a == diskGrow || a == diskMutate || a == diskSync && dirty):
		o, cause = opDiskReadOnly, ErrReadOnly
	case f.Full && a == diskGrow:
		o, cause = opDiskFull, ErrNoSpace
	default:
		return nil
	}
	s.counts[o]++
	s.effect(s.diskEffect).Failed++
	return fmt.Errorf("%w: %w: %w", simrt.ErrIO, ErrInjected, cause)
}

// diskCreates reports whether opening name in partition would create it,
// which only a read-only or a full disk needs to know: creating a blob
// writes its header, so a full disk refuses it as the disk storage does
// (ENOSPC), leaving no name. Called with s.mu held.
func (s *Storage) diskCreates(partition string, name []byte) bool {
	if !s.disk.ReadOnly && !s.disk.Full || s.disk.Fail {
		return false
	}
	names, err := s.inner.Scan(partition)
	if errors.Is(err, simrt.ErrPartitionMissing) {
		return true // the open would create the partition too
	}
	if err != nil {
		return false // let the open report its own error
	}
	return !slices.ContainsFunc(names, func(n []byte) bool { return string(n) == string(name) })
}
