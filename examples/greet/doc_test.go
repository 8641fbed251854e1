package greet

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocShowsThisCode keeps docs/PRODUCTION.md honest: each Go block there
// must appear, word for word, in the file of this package that holds it
// (the doc's main imports example.com/greet where the file imports this
// package).
func TestDocShowsThisCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/PRODUCTION.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	files := []string{"greet.go", "greet_test.go", "greet_test.go", "cmd/greet/main.go"}
	if len(blocks) != len(files) {
		t.Fatalf("docs/PRODUCTION.md has %d Go blocks, want %d (update this test and the files with it)", len(blocks), len(files))
	}
	for i, b := range blocks {
		src, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		code := strings.ReplaceAll(b[1], `"example.com/greet"`, `"github.com/simrt/simrt/examples/greet"`)
		if !strings.Contains(string(src), code) {
			t.Errorf("Go block %d of docs/PRODUCTION.md is not in %s word for word", i+1, files[i])
		}
	}
}
