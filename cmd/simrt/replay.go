package main

import (
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

const replayUsage = `usage: simrt replay ./pkg -run TestX -seed N [-trace out.json] [-- test flags]

Replay runs one seed of a simtest test again, verbosely, with go test:
the same failure, the same report, the same audit state. With -trace it
also writes the run's Perfetto trace (open it at ui.perfetto.dev).

exit codes: 0 the seed passed; 1 it failed; 2 bad flags, or a package or
test that cannot be replayed.
`

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("replay")
	run := fs.String("run", "", "the test to replay (a name, or a -run regular expression)")
	seed := fs.String("seed", "", "the seed to replay")
	trace := fs.String("trace", "", "write the run's Chrome/Perfetto trace to this `file`")
	pkg, extra, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(fs, replayUsage, err, stdout, stderr)
	}
	switch _, err := strconv.ParseUint(*seed, 10, 64); {
	case *run == "":
		fmt.Fprintln(stderr, "simrt replay: -run names the test to replay, such as -run TestReplication")
		return 2
	case *seed == "":
		fmt.Fprintln(stderr, "simrt replay: -seed names the seed to replay, such as -seed 417 (a sweep prints it)")
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "simrt replay: -seed %q: a seed is a number from 0 to %d\n", *seed, uint64(math.MaxUint64))
		return 2
	}
	switch ok, err := usesSimtest(pkg); {
	case err != nil:
		fmt.Fprintf(stderr, "simrt replay: %v\n", err)
		return 2
	case !ok:
		fmt.Fprintf(stderr, "simrt replay: the tests of %s do not use simtest: replay runs a test that calls simtest.Explore or simtest.Run\n", pkg)
		return 2
	}
	if f := forwardedFlag(extra, "seed", "seeds", "shard"); f != "" {
		fmt.Fprintf(stderr, "simrt replay: %s after --: replay sets it; choose the seed with its own -seed\n", f)
		return 2
	}
	switch names, err := listTests(pkg, testPattern(*run)); {
	case err != nil:
		fmt.Fprintf(stderr, "simrt replay: %v\n", err)
		return 2
	case len(names) == 0:
		fmt.Fprintf(stderr, "simrt replay: no test in %s matches -run %s\n", pkg, *run)
		return 2
	}
	goArgs := []string{"test", "-count=1", "-v", "-run", testPattern(*run), pkg, "-simrt.seed=" + *seed}
	if *trace != "" {
		abs, err := filepath.Abs(*trace) // go test runs the binary in the package's directory
		if err != nil {
			fmt.Fprintf(stderr, "simrt replay: %v\n", err)
			return 2
		}
		goArgs = append(goArgs, "-simrt.trace="+abs)
	}
	cmd := exec.Command("go", append(goArgs, extra...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	fmt.Fprintf(stderr, "go %s\n", strings.Join(cmd.Args[1:], " "))
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "simrt replay: %v\n", err)
		return 2
	}
	return 0
}
