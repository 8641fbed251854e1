package simtest

import (
	"flag"
	"slices"
	"testing"
)

// The package's own flags, in either form, and the arguments after the
// flags are kept; go test's and simtest's flags, with their values, are not.
func TestSplitPackageFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Bool("test.v", false, "")
	fs.Duration("test.timeout", 0, "")
	fs.Uint64("simrt.seed", 0, "")
	fs.Bool("simrt.shrink", false, "")
	fs.String("simrt.replay", "", "")
	fs.String("word", "", "")
	fs.Int("n", 0, "")
	fs.Bool("b", false, "")
	args := []string{"-test.v", "-test.timeout", "10m", "-simrt.seed=3", "-word", "two words",
		"-simrt.replay", "f.stream", "--n=3", "-b", "-simrt.shrink", "-b=false", "rest", "-b", "-simrt.seed=4"}
	want := []string{"-word", "two words", "--n=3", "-b", "-b=false", "rest", "-b", "-simrt.seed=4"}
	if got := splitPackageFlags(args, fs); !slices.Equal(got, want) {
		t.Errorf("splitPackageFlags(%q)\n = %q\nwant %q", args, got, want)
	}
	if got := splitPackageFlags([]string{"-test.v", "--", "-word", "x"}, fs); !slices.Equal(got, []string{"--", "-word", "x"}) {
		t.Errorf("after --: %q", got)
	}
}
