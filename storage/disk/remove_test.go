//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package disk_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/disk"
)

const blobsPerPartition = 5

// TestRemovePartitionIsAtomicAcrossKill kills a process (SIGKILL, from
// inside RemovePartition) after the rename, after its sync, and after
// deleting one and three of the partition's five files. Whatever the
// point, the next New sees the partition entirely gone and the other
// partition whole: never half a partition.
func TestRemovePartitionIsAtomicAcrossKill(t *testing.T) {
	if os.Getenv("SIMRT_KILL_AT") != "" {
		removeAndDie(t)
		return
	}
	for _, at := range []string{"renamed:1", "synced:1", "deleted:1", "deleted:3"} {
		t.Run(at, func(t *testing.T) {
			root := t.TempDir()
			s, err := disk.New(root)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"doomed", "kept"} {
				for i := range blobsPerPartition {
					b, _, err := s.Open(p, []byte{byte(i)})
					if err != nil {
						t.Fatal(err)
					}
					if err := b.WriteAt(0, simrt.WriteSync, []byte(p)); err != nil {
						t.Fatal(err)
					}
					b.Close()
				}
			}
			s.Close()

			cmd := exec.Command(os.Args[0], "-test.run=^TestRemovePartitionIsAtomicAcrossKill$", "-test.count=1")
			cmd.Env = append(os.Environ(), "SIMRT_KILL_AT="+at, "SIMRT_KILL_DIR="+root)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed at %s: %v\n%s", at, err, out)
			}

			s, err = disk.New(root)
			if err != nil {
				t.Fatalf("New after a kill mid-removal: %v", err)
			}
			defer s.Close()
			if _, err := s.Scan("doomed"); !errors.Is(err, simrt.ErrPartitionMissing) {
				t.Fatalf("after a kill at %s the removed partition scans as %v, want missing", at, err)
			}
			names, err := s.Scan("kept")
			if err != nil || len(names) != blobsPerPartition {
				t.Fatalf("the other partition after the kill: %d blobs, %v", len(names), err)
			}
			entries, _ := os.ReadDir(root)
			for _, e := range entries {
				if e.Name() != "kept" {
					t.Fatalf("New left %q in the root", e.Name())
				}
			}
			b, n, err := s.Open("doomed", []byte{0})
			if err != nil || n != 0 {
				t.Fatalf("a blob of the removed partition reopens with size %d, %v; want a new blob", n, err)
			}
			b.Close()
		})
	}
}

// removeAndDie is the child: it removes the partition and kills itself at
// the hook point SIMRT_KILL_AT names ("point:n", the n-th time).
func removeAndDie(t *testing.T) {
	point, nth, _ := strings.Cut(os.Getenv("SIMRT_KILL_AT"), ":")
	n, _ := strconv.Atoi(nth)
	s, err := disk.New(os.Getenv("SIMRT_KILL_DIR"))
	if err != nil {
		t.Fatal(err)
	}
	disk.SetRemoveHook(s, func(p string) {
		if p == point {
			if n--; n == 0 {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {} // the signal is on its way
			}
		}
	})
	err = s.RemovePartition("doomed")
	t.Fatal(fmt.Sprint("RemovePartition returned before the kill point: ", err))
}

// TestRemovePartitionLeavesNoTombstone: a removal that runs to the end
// leaves nothing behind in the root.
func TestRemovePartitionLeavesNoTombstone(t *testing.T) {
	s, root := newStorage(t)
	for i := range 3 {
		b, _, err := s.Open("p", []byte{byte(i)})
		if err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
	if err := s.RemovePartition("p"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("the root holds %d entries after RemovePartition", len(entries))
	}
	if err := os.Mkdir(filepath.Join(root, ".removing-1"), 0o755); err != nil {
		t.Fatal(err) // a name the next tombstone would want
	}
	b, _, _ := s.Open("p", []byte("a"))
	b.Close()
	if err := s.RemovePartition("p"); err != nil {
		t.Fatalf("RemovePartition beside an old tombstone: %v", err)
	}
}
