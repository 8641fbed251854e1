//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package realtime

import (
	"bytes"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/simrt/simrt"
)

// TestSyncStorageDirSkipsWhatIsNotOurs: entries the storage never makes —
// a lost+found, a socket, a named pipe, a dangling link, a stray file, a
// directory not named like a partition and what it holds, a link in a
// partition — are skipped and logged, and the blobs are still synced.
func TestSyncStorageDirSkipsWhatIsNotOurs(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	part := mk("partition")
	if err := os.WriteFile(filepath.Join(part, "626c6f62"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	lost := mk("lost+found")
	if err := syscall.Mkfifo(filepath.Join(lost, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(part, "6162"), 0o644); err != nil {
		t.Fatal(err) // a pipe named like a blob: opening it would block
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(part, "6364")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	if err := syncStorageDir(dir, log); err != nil {
		t.Fatalf("entries that are not ours failed the startup sync: %v", err)
	}
	for _, name := range []string{"lost+found", "pipe", "dangling", "README", "s", "6162", "6364"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("the skipped entry %q was not logged:\n%s", name, out.String())
		}
	}
	if strings.Contains(out.String(), "626c6f62") {
		t.Errorf("a blob was logged as skipped:\n%s", out.String())
	}
}

// TestStartWithUnreadableEntry: a directory of the storage volume that the
// process may not read (a root-owned lost+found, mode 0700) does not stop
// Start; the blobs are usable. Tests run as root here, and root reads
// everything, so as root the check runs in a child process as nobody.
func TestStartWithUnreadableEntry(t *testing.T) {
	if dir := os.Getenv("SIMRT_UNREADABLE_CHILD"); dir != "" {
		startAndUse(t, dir)
		return
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "storage")
	part := filepath.Join(dir, "partition")
	lost := filepath.Join(dir, "lost+found")
	for _, p := range []string{part, lost} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(lost, "123"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(lost, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(lost, 0o000); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(lost, 0o700)
		startAndUse(t, dir)
		return
	}
	// As root: hand everything but lost+found to nobody, and run the test
	// binary (copied where nobody may execute it) as nobody.
	const nobody = 65534
	for _, p := range []string{filepath.Dir(tmp), tmp, dir, part} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir, part} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "realtime.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestStartWithUnreadableEntry$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SIMRT_UNREADABLE_CHILD="+dir)
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Start as nobody beside a root-owned lost+found: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "lost+found") {
		t.Fatalf("the unreadable entry was not logged:\n%s", out)
	}
}

// startAndUse starts a runtime on dir and writes and reads a blob.
func startAndUse(t *testing.T, dir string) {
	var got []byte
	var useErr error
	New(Config{StorageDirectory: dir}).Start(func(ctx simrt.Context) {
		b, _, err := ctx.Open("partition", []byte("blob"))
		if err != nil {
			useErr = err
			return
		}
		defer b.Close()
		if useErr = b.WriteAt(0, simrt.WriteSync, []byte("ok")); useErr != nil {
			return
		}
		got = make([]byte, 2)
		useErr = b.ReadAt(got, 0)
	})
	if useErr != nil || string(got) != "ok" {
		t.Fatalf("storage after Start: %q, %v", got, useErr)
	}
}
