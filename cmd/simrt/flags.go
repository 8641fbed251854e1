package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Exit codes of every subcommand, as go's: 0 success; 1 the run found
// something (a failing seed, a vet report); 2 a usage error (a bad flag, a
// package that does not exist), reported in one line.

// newFlags returns the flag set of "simrt name". It prints nothing itself:
// parseFailed reports its errors in one line, and prints usage and the
// flags on -h.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFailed returns the exit code of a failed parse of fs: on -h it
// prints usage and fs's flags on stdout and returns 0; on a bad flag or
// argument it prints one line on stderr, pointing at -h, and returns 2.
func parseFailed(fs *flag.FlagSet, usage string, err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		printHelp(fs, usage, stdout)
		return 0
	}
	fmt.Fprintf(stderr, "simrt %s: %v; see simrt %s -h\n", fs.Name(), err, fs.Name())
	return 2
}

// printHelp writes usage and fs's flags to w.
func printHelp(fs *flag.FlagSet, usage string, w io.Writer) {
	fmt.Fprint(w, usage)
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
