package realtime

import (
	"errors"
	"io/fs"
	"os"
)

// syncStorageDir makes everything already in the storage directory
// durable before any task reads it: data a crashed earlier process wrote
// but the kernel had not yet flushed must not be read as if it were on
// disk (the reference syncs the whole filesystem at startup). It syncs the
// directory tree: every file and directory below dir. A missing directory
// is fine: there is nothing to make durable yet.
func syncStorageDir(dir string) error {
	_, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return walkSync(dir)
}

func walkSync(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := dir + string(os.PathSeparator) + e.Name()
		switch {
		case e.IsDir():
			if err := walkSync(p); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if err := syncPath(p); err != nil {
				return err
			}
		}
	}
	return syncPath(dir)
}

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
