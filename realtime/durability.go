package realtime

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/simrt/simrt/storage"
)

// syncStorageDir makes everything of ours already in the storage directory
// durable before any task reads it: data a crashed earlier process wrote
// but the kernel had not yet flushed must not be read as if it were on
// disk (the reference syncs the whole filesystem at startup). Ours is what
// the disk storage makes: the directory itself, its partition directories
// (named like partitions) and their blob files (regular files named like
// blobs). Everything else — a lost+found, a socket, a dangling link, a
// stray file — is not ours: it is skipped and logged, never a reason to
// refuse to start. A partition removal a crash interrupted is skipped too:
// the storage deletes it when it first opens the directory.
//
// A missing directory is fine: there is nothing to make durable yet. An
// error is returned only when something of ours cannot be synced.
func syncStorageDir(dir string, log *slog.Logger) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return errors.New("not a directory")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), ".removing-"):
			// An interrupted RemovePartition: disk.New finishes it.
		case e.IsDir() && storage.CheckPartition(e.Name()) == nil:
			if err := syncPartition(p, log); err != nil {
				return err
			}
		default:
			skipped(log, p, e)
		}
	}
	return syncPath(dir)
}

// syncPartition syncs the blob files of a partition, then the partition.
func syncPartition(dir string, log *slog.Logger) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if _, ok := storage.ParseHexName(e.Name()); !ok || !e.Type().IsRegular() {
			skipped(log, p, e)
			continue
		}
		if err := syncPath(p); err != nil {
			return err
		}
	}
	return syncPath(dir)
}

func skipped(log *slog.Logger, path string, e fs.DirEntry) {
	log.Warn("storage startup sync: skipping an entry that is not a partition or a blob", "path", path, "type", e.Type().String())
}

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
