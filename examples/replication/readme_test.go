package replication

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeShowsThisCode keeps the README honest: each Go block of its
// "Testing with seeds" section appears, word for word, in register_test.go.
func TestReadmeShowsThisCode(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Testing with seeds\n")
	if !ok {
		t.Fatal(`README.md has no "## Testing with seeds" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) == 0 {
		t.Fatal("the README's Testing with seeds section has no Go block")
	}
	src, err := os.ReadFile("register_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		if !strings.Contains(string(src), b[1]) {
			t.Errorf("Go block %d of the README's Testing with seeds section is not in register_test.go:\n%s", i+1, b[1])
		}
	}
	for _, cmd := range []string{"./replication -simrt.seeds=", "simrt sweep ./replication -run TestReplication"} {
		if !strings.Contains(section, cmd) {
			t.Errorf("the section no longer shows %q", cmd)
		}
	}
}
