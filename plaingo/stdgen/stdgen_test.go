package stdgen

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGenerateCurrentRelease: the running Go's release is pinned and every
// hook of it generates: what simrt test does at each build.
func TestGenerateCurrentRelease(t *testing.T) {
	files, err := Generate(runtime.GOROOT(), runtime.Version())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("Generate(%s) made no files", runtime.Version())
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
