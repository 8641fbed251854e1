// Command simrt is simrt's command-line tool.
//
//	simrt demo [-seed N]                    run a small simulation and print what happened
//	simrt sweep ./pkg -run TestX -seeds A..B  run a simtest test over many seeds
//	simrt replay ./pkg -run TestX -seed N     replay one seed, with its trace
//	simrt shrink ./pkg -run TestX -seed N     shrink a failing seed's decision stream
//	simrt inevitable ./pkg -run TestX -seed N find when a failing seed's failure became inevitable
//	simrt vet ./...                          report code that escapes the simulator
//
// Run "simrt help" for every subcommand.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: it parses its own flags from args and writes
// to stdout; it returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands maps subcommand names to their implementations. Each subcommand
// lives in its own file and adds itself here.
var commands = map[string]command{
	"demo":       {"run a small simulation and print what happened (same seed, same bytes)", runDemo},
	"sweep":      {"run a simtest test over many seeds in parallel processes, with progress and a summary", runSweep},
	"replay":     {"run one seed of a simtest test again, optionally writing its Perfetto trace", runReplay},
	"shrink":     {"shrink a failing seed's decision stream to a small reproduction, saved as a file go test replays", runShrink},
	"inevitable": {"find the earliest decision of a failing seed after which nearly every continuation fails", runInevitable},
	"vet":        {"report code that escapes the simulator (go vet with simrt's analyzer)", runVet},
}

func main() {
	if isVetTool(os.Args[1:]) {
		vetTool()
	}
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "simrt: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: simrt <command> [flags]")
	fmt.Fprintln(w)
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
}
