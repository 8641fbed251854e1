package simtest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/nemesis"
)

// checkPaths checks the files the settings name before any seed runs, so
// that a bad path fails a test once, in one line, rather than in every
// seed (-simrt.replay, -simrt.trace), after the whole sweep
// (-simrt.coverfile), or never (-simrt.schedule in a test that does not
// call Nemesis). Files read must exist and parse; files written must be
// creatable, without creating them. The checks cannot fail a path that
// would have worked.
func checkPaths(st settings) error {
	for _, w := range []struct{ flag, path string }{
		{"trace", st.trace}, {"coverfile", st.coverFile}, {"record", st.record},
	} {
		if w.path == "" {
			continue
		}
		if err := checkWritable(w.path); err != nil {
			return fmt.Errorf("simtest: -simrt.%s=%s: %w", w.flag, w.path, err)
		}
	}
	if st.replay != "" {
		if _, err := decision.ReadStreamFile(st.replay); err != nil {
			// The words of the check in setupStreams, which it forestalls.
			return fmt.Errorf("simrt: -simrt.replay=%s: %w", st.replay, err)
		}
	}
	if path := schedulePath(); path != "" {
		if _, err := nemesis.ReadSchedule(path); err != nil {
			return fmt.Errorf("simtest: -simrt.schedule=%s: %w", path, err)
		}
	}
	return nil
}

// checkWritable reports whether path can be written: an existing file is
// opened for writing (and left as it was); otherwise its directory must
// exist and take a new file (a probe file, created and removed).
func checkWritable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return errors.New("is a directory")
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil {
		return fmt.Errorf("directory %s: %w", dir, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".simrt-probe-*")
	if err != nil {
		return fmt.Errorf("cannot create a file in %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
