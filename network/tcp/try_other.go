//go:build !unix

package tcp

import (
	"errors"
	"syscall"
)

// tryRead always defers to the blocking path on this platform.
func tryRead(syscall.RawConn, []byte) (int, bool, error) { return 0, true, nil }

// tryWrite always defers to the blocking path on this platform.
func tryWrite(syscall.RawConn, []byte) (int, bool, error) { return 0, true, nil }

// outOfResources reports whether an accept failed because the process is
// out of descriptors or buffers; on this platform, whether the error says
// it is temporary.
func outOfResources(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}
