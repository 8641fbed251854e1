package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/simrt/simrt/cmd/simrtvet/escape"
)

const vetUsage = `usage: simrt vet [vet flags] [packages]

Vet runs go vet with simrt's analyzer (the checks of cmd/simrtvet) over the
packages, ./... by default: code that escapes the simulator, such as go
statements, native channels, the wall clock, unseeded randomness, real I/O
and map order reaching an output. Silence a line with //simrt:allow REASON.

exit codes: 0 nothing to report; 1 it reported something, as go vet does;
2 a usage error (a package that does not exist, a bad flag), in one line.
`

// vetToolEnv marks the simrt process that go vet starts as its vet tool.
const vetToolEnv = "SIMRT_VETTOOL"

// isVetTool reports whether go vet runs this process as its -vettool:
// simrt vet sets vetToolEnv, and go vet asks a tool "-V=full" and "-flags"
// before it hands it a .cfg file per package.
func isVetTool(args []string) bool {
	if os.Getenv(vetToolEnv) == "1" {
		return true
	}
	if len(args) == 0 {
		return false
	}
	if _, isCommand := commands[args[0]]; isCommand {
		return false // "simrt sweep ... -- x.cfg" is a sweep
	}
	return args[0] == "-V=full" || args[0] == "-flags" || strings.HasSuffix(args[len(args)-1], ".cfg")
}

// vetTool runs the analyzer as go vet's tool; it does not return.
func vetTool() {
	singlechecker.Main(escape.Analyzer)
}

func runVet(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, vetUsage)
			return 0
		}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "simrt vet: cannot find the simrt binary to run as the vet tool: %v\n", err)
		return 2
	}
	pkgs := vetPackages(args)
	if len(pkgs) == 0 {
		args = append(args, "./...")
	} else if err := findPackages(pkgs); err != nil {
		fmt.Fprintf(stderr, "simrt vet: %v; see simrt vet -h\n", err)
		return 2
	}
	cmd := exec.Command("go", append([]string{"vet", "-vettool=" + self}, args...)...)
	cmd.Env = append(os.Environ(), vetToolEnv+"=1")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "simrt vet: %v\n", err)
		return 2
	}
	return 0
}

// valueFlags are the go vet build flags that take their value as the next
// argument.
var valueFlags = []string{"-C", "-asmflags", "-exec", "-gccgoflags", "-gcflags", "-installsuffix",
	"-ldflags", "-mod", "-modfile", "-overlay", "-p", "-pgo", "-pkgdir", "-tags", "-toolexec"}

// vetPackages returns the package arguments of a vet command line: those
// that are neither a flag nor the value of one.
func vetPackages(args []string) []string {
	var pkgs []string
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "-"):
		case i > 0 && slices.Contains(valueFlags, "-"+strings.TrimLeft(args[i-1], "-")):
		default:
			pkgs = append(pkgs, a)
		}
	}
	return pkgs
}

// findPackages reports, in one line, the first package argument that names
// no package, as go list -find does.
func findPackages(pkgs []string) error {
	cmd := exec.Command("go", append([]string{"list", "-find", "--"}, pkgs...)...)
	var errb strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Run(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(errb.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("go list: %s", msg)
	}
	return nil
}
