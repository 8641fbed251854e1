//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package disk

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/simrt/simrt"
)

// noFollow makes an open fail on a symbolic link instead of following it.
const noFollow = syscall.O_NOFOLLOW

// lockDir opens dir and takes an exclusive advisory lock on it, without
// waiting. The lock lasts until the returned file is closed.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", simrt.ErrIO, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		return nil, fmt.Errorf("%w: locking %s: %w", simrt.ErrIO, dir, err)
	}
	return f, nil
}
