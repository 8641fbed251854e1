//go:build unix

package tcp

import (
	"errors"
	"io"
	"syscall"
)

// rawOp makes non-blocking system calls on a socket through its
// syscall.RawConn. A half keeps one, bound once, so that an attempt
// allocates nothing (a closure per call would take its results to the
// heap). It is used by one task at a time, as its half.
type rawOp struct {
	rc          syscall.RawConn // nil: no attempts, the blocking path decides
	b           []byte
	n           int
	e           error
	read, write func(fd uintptr) bool // doRead and doWrite of this rawOp
}

// init binds o to rc.
func (o *rawOp) init(rc syscall.RawConn) {
	o.rc, o.read, o.write = rc, o.doRead, o.doWrite
}

func (o *rawOp) doRead(fd uintptr) bool {
	o.n, o.e = syscall.Read(int(fd), o.b)
	return true
}

func (o *rawOp) doWrite(fd uintptr) bool {
	o.n, o.e = syscall.Write(int(fd), o.b)
	return true
}

// tryRead makes one non-blocking read into b. wouldBlock reports that
// nothing was available (or the attempt could not be made); err is set at
// the end of the stream or on a socket error.
func (o *rawOp) tryRead(b []byte) (n int, wouldBlock bool, err error) {
	if o.rc == nil {
		return 0, true, nil
	}
	o.b = b
	cerr := o.rc.Read(o.read)
	n, e := o.n, o.e
	o.b, o.e = nil, nil
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
func (o *rawOp) tryWrite(b []byte) (n int, wouldBlock bool, err error) {
	if o.rc == nil {
		return 0, true, nil
	}
	o.b = b
	cerr := o.rc.Write(o.write)
	n, e := o.n, o.e
	o.b, o.e = nil, nil
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
