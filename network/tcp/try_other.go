//go:build !unix

package tcp

import (
	"errors"
	"syscall"
)

// rawOp would make non-blocking system calls; on this platform every
// operation takes the blocking path.
type rawOp struct{}

func (o *rawOp) init(syscall.RawConn) {}

// tryRead always defers to the blocking path on this platform.
func (o *rawOp) tryRead([]byte) (int, bool, error) { return 0, true, nil }

// tryWrite always defers to the blocking path on this platform.
func (o *rawOp) tryWrite([]byte) (int, bool, error) { return 0, true, nil }

// outOfResources reports whether an accept failed because the process is
// out of descriptors or buffers; on this platform, whether the error says
// it is temporary.
func outOfResources(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}
