//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package disk

import (
	"fmt"
	"os"

	"github.com/simrt/simrt"
)

// noFollow is zero where the platform has no O_NOFOLLOW; Open still
// refuses a symbolic link it sees before opening.
const noFollow = 0

// lockDir opens dir. This platform has no flock: two Storages on one
// directory are not detected.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", simrt.ErrIO, err)
	}
	return f, nil
}
