//go:build unix

package tcp

import (
	"errors"
	"io"
	"syscall"
)

// tryRead makes one non-blocking read into b. wouldBlock reports that
// nothing was available (or the attempt could not be made); err is set at
// the end of the stream or on a socket error.
func tryRead(rc syscall.RawConn, b []byte) (n int, wouldBlock bool, err error) {
	var e error
	cerr := rc.Read(func(fd uintptr) bool {
		n, e = syscall.Read(int(fd), b)
		return true
	})
	switch {
	case cerr != nil: // deadline or closed: let the blocking path decide
		return 0, true, nil
	case e == syscall.EAGAIN || e == syscall.EWOULDBLOCK || e == syscall.EINTR:
		return 0, true, nil
	case e != nil:
		return 0, false, e
	case n == 0:
		return 0, false, io.EOF
	}
	return n, false, nil
}

// tryWrite makes one non-blocking write of b and returns how much the
// kernel took.
func tryWrite(rc syscall.RawConn, b []byte) (n int, wouldBlock bool, err error) {
	var e error
	cerr := rc.Write(func(fd uintptr) bool {
		n, e = syscall.Write(int(fd), b)
		return true
	})
	switch {
	case cerr != nil:
		return 0, true, nil
	case e == syscall.EAGAIN || e == syscall.EWOULDBLOCK || e == syscall.EINTR:
		return 0, true, nil
	case e != nil:
		return 0, false, e
	case n <= 0:
		return 0, true, nil
	}
	return n, false, nil
}

// outOfResources reports whether an accept failed because the process or
// the system is out of file descriptors or buffers: the listener is still
// good and a later attempt may succeed.
func outOfResources(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}
