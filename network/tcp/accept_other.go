//go:build !unix

package tcp

import "errors"

// outOfResources reports whether an accept failed because the process is
// out of descriptors or buffers; on this platform, whether the error says
// it is temporary.
func outOfResources(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}
