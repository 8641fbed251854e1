package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func init() {
	commands["test"] = command{"run plain Go packages' own tests under the simulator, one simulation per seed (go test flags, -simrt.* flags)", runPlainTest}
	commands["overlay"] = command{"print the go command flags that build plain Go packages for the simulator (for go test)", runPlainOverlay}
}

// goTestValueFlags are the go test flags that take their value as the next
// argument when written without "=".
var goTestValueFlags = map[string]bool{
	"run": true, "skip": true, "bench": true, "benchtime": true, "count": true, "cpu": true,
	"parallel": true, "timeout": true, "coverprofile": true, "covermode": true, "coverpkg": true,
	"o": true, "exec": true, "shuffle": true, "fuzz": true, "fuzztime": true, "fuzzminimizetime": true,
	"list": true, "memprofile": true, "memprofilerate": true, "cpuprofile": true, "blockprofile": true,
	"blockprofilerate": true, "mutexprofile": true, "mutexprofilefraction": true, "outputdir": true,
	"trace": true, "tags": true, "p": true, "ldflags": true, "gcflags": true, "modfile": true,
	"overlay": true, "vet": false,
}

// splitTestArgs separates the package patterns of a go test command line
// from its flags; everything after -args is the test binary's.
func splitTestArgs(args []string) (patterns, flags, binArgs []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-args" || a == "--args":
			return patterns, flags, args[i+1:]
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && goTestValueFlags[name] && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			patterns = append(patterns, a)
		}
	}
	return patterns, flags, nil
}

// runPlainTest is `simrt test [go test flags] PACKAGES`: it builds the
// overlay that rewrites the packages' build graph and runs go test with it.
// The -simrt.* flags go to the test binaries, whose TestX functions each
// run as one simulation per seed (package plaingo).
func runPlainTest(args []string, stdout, stderr io.Writer) int {
	patterns, flags, binArgs := splitTestArgs(args)
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	for _, f := range flags {
		if name := strings.SplitN(strings.TrimLeft(f, "-"), "=", 2)[0]; name == "tags" || name == "overlay" || name == "modfile" {
			fmt.Fprintf(stderr, "simrt test: -%s is set by simrt test itself\n", name)
			return 2
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	setup, err := buildPlain(dir, patterns, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	cmd := exec.Command("go", goTestArgs(setup.flags(), patterns, flags, binArgs)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = append(plainEnv(), "SIMRT_TEST_COMMAND=simrt test")
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// runPlainOverlay is `simrt overlay PACKAGES`: it builds the overlay and
// prints the flags that make go test (or go build) use it.
func runPlainOverlay(args []string, stdout, stderr io.Writer) int {
	patterns, flags, _ := splitTestArgs(args)
	if len(flags) > 0 {
		fmt.Fprintf(stderr, "simrt overlay: no flags (got %s); usage: simrt overlay PACKAGES\n", strings.Join(flags, " "))
		return 2
	}
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	setup, err := buildPlain(dir, patterns, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintln(stdout, strings.Join(setup.flags(), " "))
	fmt.Fprintln(stderr, "simrt: run with CGO_ENABLED=0, e.g. CGO_ENABLED=0 go test $(simrt overlay ./pkg) ./pkg")
	return 0
}

// goTestArgs is the go test command line of simrt test. The packages come
// before the user's flags: go test takes the first flag it does not know
// (-simrt.seeds=...) and everything after it for the test binary, packages
// included, which are then ignored (measured: go test -my.flag=1 ./sub
// tests "."; and -args after them never reached the binary's flags).
func goTestArgs(setupFlags, patterns, flags, binArgs []string) []string {
	args := append([]string{"test"}, setupFlags...)
	args = append(args, patterns...)
	args = append(args, flags...)
	if len(binArgs) > 0 {
		args = append(append(args, "-args"), binArgs...)
	}
	return args
}
