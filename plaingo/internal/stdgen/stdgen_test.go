package stdgen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the committed overlay files from the running Go")

// overlayDir is where the generated files of a release are committed.
func overlayDir(release string) string {
	return filepath.Join("..", "..", "_goroot", release, "src")
}

// TestOverlayIsGenerated: the committed overlay files of the running Go's
// release are exactly what Generate makes from its sources, and no other
// file is committed beside them. It fails, naming the release and the
// hook, when the running Go moved one of the pinned hooks (Go releases,
// issue 31 item 11).
func TestOverlayIsGenerated(t *testing.T) {
	release := Release(runtime.Version())
	files, err := Generate(runtime.GOROOT(), runtime.Version())
	if err != nil {
		t.Fatal(err)
	}
	dir := overlayDir(release)
	if *update {
		os.RemoveAll(dir)
		for path, text := range files {
			name := filepath.Join(dir, filepath.FromSlash(path))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var committed []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			committed = append(committed, filepath.ToSlash(rel))
		}
		return nil
	})
	var want []string
	for path, text := range files {
		want = append(want, path)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("%s: %v (run go test ./plaingo/internal/stdgen -update)", path, err)
			continue
		}
		if !bytes.Equal(got, text) {
			t.Errorf("%s differs from what Generate makes from %s (run go test ./plaingo/internal/stdgen -update and review)", path, runtime.Version())
		}
	}
	slices.Sort(want)
	slices.Sort(committed)
	if !slices.Equal(want, committed) {
		t.Errorf("committed files %v, generated %v", committed, want)
	}
}

// TestGenerateRefusesMovedHook: a release whose hook declaration differs
// from its pin is refused with the Go version and the hook named, and an
// unpinned release is refused naming the supported ones.
func TestGenerateRefusesMovedHook(t *testing.T) {
	root := t.TempDir()
	src := runtime.GOROOT()
	// A copy of the sources the hooks read, with one declaration moved as
	// a release might move it (a new parameter).
	for _, dir := range []string{"runtime", "sync", "internal/sync", "time", "math/rand", "math/rand/v2", "hash/maphash", "crypto/internal/sysrand"} {
		names, _ := filepath.Glob(filepath.Join(src, "src", dir, "*.go"))
		asm, _ := filepath.Glob(filepath.Join(src, "src", dir, "*.s"))
		for _, name := range append(names, asm...) {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			text, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if dir == "sync" && filepath.Base(name) == "runtime.go" {
				text = bytes.Replace(text, []byte("func runtime_SemacquireWaitGroup(s *uint32, synctestDurable bool)"),
					[]byte("func runtime_SemacquireWaitGroup(s *uint32, synctestDurable bool, skipframes int)"), 1)
			}
			to := filepath.Join(root, "src", dir, filepath.Base(name))
			os.MkdirAll(filepath.Dir(to), 0o755)
			if err := os.WriteFile(to, text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err := Generate(root, "go1.26.99")
	if err == nil || !strings.Contains(err.Error(), "Go go1.26.99 moved the runtime hooks pinned for go1.26: sync.runtime_SemacquireWaitGroup (pinned "+pins["go1.26"]["sync.runtime_SemacquireWaitGroup"]+", found ") {
		t.Errorf("moved hook: %v", err)
	}
	if strings.Count(err.Error(), "(pinned ") != 1 {
		t.Errorf("an unmoved hook reported: %v", err)
	}
	_, err = Generate(src, "go1.99.0")
	if err == nil || !strings.Contains(err.Error(), "Go go1.99.0 (release go1.99) is not supported; supported: go1.26") {
		t.Errorf("unpinned release: %v", err)
	}
}

// TestRelease: versions map to their release.
func TestRelease(t *testing.T) {
	for v, want := range map[string]string{"go1.26.8": "go1.26", "go1.27rc1": "go1.27", "go1.26": "go1.26", "go1.25.0 X:foo": "go1.25"} {
		if got := Release(v); got != want {
			t.Errorf("Release(%q) = %q, want %q", v, got, want)
		}
	}
}
