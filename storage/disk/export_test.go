package disk

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
)

// ErrInjectedSync is the error a sync fails with once FailSyncs is on.
var ErrInjectedSync = errors.New("injected sync failure")

// FailSyncs returns a switch that makes every sync of s fail with
// ErrInjectedSync while it is on.
func FailSyncs(s *Storage) *atomic.Bool {
	var on atomic.Bool
	s.datasync = func(f *os.File) error {
		if on.Load() {
			return ErrInjectedSync
		}
		return datasync(f)
	}
	return &on
}

// SetRemoveHook calls h at each named point of RemovePartition.
func SetRemoveHook(s *Storage, h func(point string)) { s.hook = h }

// NoSync makes every sync of s a no-op, for tests (the fuzz target) that
// check what an open does to a file, not what survives a power cut.
func NoSync(s *Storage) {
	s.datasync = func(*os.File) error { return nil }
	s.dirsync = s.datasync
}

// FullDisk returns a switch that makes every file sync of s fail with
// ENOSPC while it is on, as a file system that allocates blocks lazily
// reports a full disk at fdatasync.
func FullDisk(s *Storage) *atomic.Bool {
	var on atomic.Bool
	s.datasync = func(f *os.File) error {
		if on.Load() {
			return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: syscall.ENOSPC}
		}
		return datasync(f)
	}
	return &on
}
