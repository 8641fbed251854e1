package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

const shrinkUsage = `usage: simrt shrink ./pkg -run TestX -seed N [-o file] [-runs n] [-- test flags]

Shrink replays a failing seed of a simtest test and shrinks whatever
caused the failure (-simrt.shrink): the fault schedule of simtest.Nemesis
(fewer, simpler faults), then the decision stream (a shorter prefix, more
defaults: no yield, first choice, no fault), then the schedule again,
keeping a candidate only when the test fails the same way. It saves the
result (by default in the package's testdata/simrt/: a .stream and, with
a nemesis, a .schedule) and prints the go test command that replays it:

  simrt: shrank seed 10 (...) from 12 faults and 3,256 decisions (3,256 not the default) to 2 and 5,860 (0) in 70 runs; ...
  replay: go test -run '^TestX$' ./pkg -simrt.seed=10 -simrt.replay=testdata/simrt/TestX-seed10.stream -simrt.schedule=testdata/simrt/TestX-seed10.schedule

Every candidate runs in its own process of the test binary. It exits 0
when the seed shrank, 1 when the seed failed but could not be shrunk (the
test's output says why), 2 on bad input or a seed that passes.
`

const inevitableUsage = `usage: simrt inevitable ./pkg -run TestX -seed N [-n 20] [-rate 0.95] [-- test flags]

Inevitable replays a failing seed of a simtest test and finds when its
failure became inevitable: the shortest prefix of its decision stream
after which nearly all runs (-rate of -n, continuing with fresh seeds
and the failing run's fault schedule) fail the same way, or says that no
prefix did. It prints that decision, the decisions and the events
of the run around it: where a bug report should start. It binary-searches
the prefix length, assuming that a longer prefix fails at least as often.
It exits 0 when it answered, 1 when the seed failed but the
search did not finish (the test's output says why), 2 on bad input or a
seed that passes.
`

func runShrink(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shrink", flag.ContinueOnError)
	out := fs.String("o", "", "save the shrunk stream to this `file` (default testdata/simrt/TEST-seedN.stream in the package)")
	runs := fs.Int("runs", 400, "at most `n` candidate runs (the failing run and the check of the result come on top)")
	return runStreamTool("shrink", shrinkUsage, shrunkMark, fs, args, stdout, stderr, func() ([]string, error) {
		if *runs < 1 {
			return nil, fmt.Errorf("-runs %d: want at least 1", *runs)
		}
		flags := []string{"-simrt.shrink", "-simrt.shrinkruns=" + strconv.Itoa(*runs)}
		if *out != "" {
			abs, err := filepath.Abs(*out) // go test runs the binary in the package's directory
			if err != nil {
				return nil, err
			}
			flags = append(flags, "-simrt.shrinkout="+abs)
		}
		return flags, nil
	})
}

func runInevitable(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inevitable", flag.ContinueOnError)
	n := fs.Int("n", 20, "`n` fresh continuations per prefix tried")
	rate := fs.Float64("rate", 0.95, "the `fraction` of continuations that must fail")
	return runStreamTool("inevitable", inevitableUsage, inevitableMark, fs, args, stdout, stderr, func() ([]string, error) {
		switch {
		case *n < 1:
			return nil, fmt.Errorf("-n %d: want at least 1", *n)
		case !(*rate > 0 && *rate <= 1):
			return nil, fmt.Errorf("-rate %v: want a fraction in (0, 1]", *rate)
		}
		return []string{"-simrt.inevitable", "-simrt.continuations=" + strconv.Itoa(*n),
			"-simrt.inevitablerate=" + strconv.FormatFloat(*rate, 'g', -1, 64)}, nil
	})
}

// The lines the test binary logs when the work of a stream tool is done:
// the seed still fails (so go test exits 1), yet the tool succeeded.
var (
	shrunkMark     = regexp.MustCompile(`: simrt: shrank seed \d+ `)
	inevitableMark = regexp.MustCompile(`: simrt: seed \d+ \(.*\) (became inevitable at (decision #|no point)|fails whatever its decisions)`)
)

// notDone says, per tool, what went wrong when the work did not finish.
var notDone = map[string]string{"shrink": "the shrink did not finish", "inevitable": "the search for the inevitable point did not finish"}

// runStreamTool runs one failing seed of a simtest test with go test and
// the simtest flags that extra returns, which do the work in the test
// binary. The seed fails, so go test exits 1 either way; the tool exits 0
// when the output holds done (the work's result line), 1 with a one-line
// error when it does not, and 2 on bad input or a seed that passes.
func runStreamTool(name, usage string, done *regexp.Regexp, fs *flag.FlagSet, args []string, stdout, stderr io.Writer, extra func() ([]string, error)) int {
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage, "\nflags:\n"); fs.PrintDefaults() }
	run := fs.String("run", "", "the failing test (a name, or a -run regular expression)")
	seed := fs.String("seed", "", "its failing seed")
	pkg, pass, err := parseArgs(fs, args)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "simrt %s: %v (simrt %s -h for help)\n", name, err, name)
		}
		return 2
	}
	switch _, err := strconv.ParseUint(*seed, 10, 64); {
	case *run == "":
		fmt.Fprintf(stderr, "simrt %s: -run names the failing test, such as -run TestReplication\n", name)
		return 2
	case *seed == "":
		fmt.Fprintf(stderr, "simrt %s: -seed names the failing seed, such as -seed 417 (a sweep prints it)\n", name)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "simrt %s: -seed %q: a seed is a number from 0 to %d\n", name, *seed, uint64(math.MaxUint64))
		return 2
	}
	flags, err := extra()
	if err != nil {
		fmt.Fprintf(stderr, "simrt %s: %v\n", name, err)
		return 2
	}
	switch ok, err := usesSimtest(pkg); {
	case err != nil:
		fmt.Fprintf(stderr, "simrt %s: %v\n", name, err)
		return 2
	case !ok:
		fmt.Fprintf(stderr, "simrt %s: the tests of %s do not use simtest: %s runs a test that calls simtest.Explore or simtest.Run\n", name, pkg, name)
		return 2
	}
	goArgs := append([]string{"test", "-count=1", "-run", testPattern(*run), pkg, "-simrt.seed=" + *seed}, flags...)
	cmd := exec.Command("go", append(goArgs, pass...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(stdout, &out), stderr
	fmt.Fprintf(stderr, "go %s\n", strings.Join(cmd.Args[1:], " "))
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		switch {
		case !ok:
			fmt.Fprintf(stderr, "simrt %s: %v\n", name, err)
			return 2
		case ee.ExitCode() == 1 && done.Match(out.Bytes()):
			return 0
		case ee.ExitCode() == 1:
			fmt.Fprintf(stderr, "simrt %s: seed %s of %s failed, but %s (the test's output above says why)\n", name, *seed, *run, notDone[name])
			return 1
		}
		fmt.Fprintf(stderr, "simrt %s: go test exited with code %d (the output above says why)\n", name, ee.ExitCode())
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "simrt %s: seed %s of %s passed: there is no failure to work on\n", name, *seed, *run)
	return 2
}
