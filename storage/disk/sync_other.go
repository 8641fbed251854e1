//go:build !linux

package disk

import "os"

// datasync flushes a file with fsync where fdatasync is not available.
func datasync(f *os.File) error { return f.Sync() }
