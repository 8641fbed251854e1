package simtest_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A bad file given to a flag fails the test once, before the first seed,
// in one line naming the flag: a stream to replay or a schedule that does
// not exist (even in a test that never calls Nemesis), a trace, coverage
// or record file that cannot be created.
func TestBadFlagPathFailsOnceUpFront(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nodir")
	for _, c := range []struct{ flag, want string }{
		{"-simrt.replay=" + missing + "/x.stream", "simrt: -simrt.replay=" + missing + "/x.stream: "},
		{"-simrt.schedule=" + missing + "/x.sched", "simtest: -simrt.schedule=" + missing + "/x.sched: "},
		{"-simrt.trace=" + missing + "/t.json", "simtest: -simrt.trace=" + missing + "/t.json: directory " + missing},
		{"-simrt.coverfile=" + missing + "/c.json", "simtest: -simrt.coverfile=" + missing + "/c.json: directory " + missing},
		{"-simrt.coverfile=" + t.TempDir(), "is a directory"},
	} {
		out := runHelper(t, "TestHelperPanic", "-simrt.seeds=0..9", c.flag)
		if n := strings.Count(out, c.want); n != 1 {
			t.Errorf("%s: the error %q appears %d times, want once:\n%s", c.flag, c.want, n, out)
		}
		if strings.Contains(out, "seed=") {
			t.Errorf("%s: seeds ran despite the bad path:\n%s", c.flag, out)
		}
	}
	// A writable path is left as it was: nothing created.
	dir := t.TempDir()
	runHelper(t, "TestHelperPanic", "-simrt.seeds=0..199", "-simrt.coverfile="+filepath.Join(dir, "c.json"), "-simrt.schedule="+missing)
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the up-front check left files behind: %v", ents)
	}
}

// The package documentation lists every flag the package registers, and
// no other.
func TestDocListsEveryFlag(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile(`(?m)^//\t\s*-simrt\.([a-z]+)`).FindAllStringSubmatch(string(src), -1) {
		if !slices.Contains(documented, m[1]) {
			documented = append(documented, m[1])
		}
	}
	var registered []string
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if name, ok := strings.CutPrefix(f.Name, "simrt."); ok {
			registered = append(registered, name)
		}
	})
	slices.Sort(documented)
	slices.Sort(registered)
	if !slices.Equal(documented, registered) {
		t.Errorf("doc.go lists the flags\n  %v\nthe package registers\n  %v", documented, registered)
	}
}
