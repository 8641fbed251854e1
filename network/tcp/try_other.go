//go:build !unix

package tcp

import "syscall"

// tryRead always defers to the blocking path on this platform.
func tryRead(syscall.RawConn, []byte) (int, bool, error) { return 0, true, nil }

// tryWrite always defers to the blocking path on this platform.
func tryWrite(syscall.RawConn, []byte) (int, bool, error) { return 0, true, nil }
