//go:build unix

package tcp

import (
	"errors"
	"syscall"
)

// outOfResources reports whether an accept failed because the process or
// the system is out of file descriptors or buffers: the listener is still
// good and a later attempt may succeed.
func outOfResources(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}
