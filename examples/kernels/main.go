package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command: it parses args, prints the table to stdout and
// returns the exit code; a bad flag is one line on stderr and exit code 2.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kernels", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seeds := fs.Int("seeds", 1000, "seeds per kernel and scheduler (1..1000000)")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "kernels: %v (usage: kernels [-seeds N])\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kernels: unexpected argument %q (usage: kernels [-seeds N])\n", fs.Arg(0))
		return 2
	}
	if *seeds < 1 || *seeds > 1000000 {
		fmt.Fprintf(stderr, "kernels: -seeds %d out of range 1..1000000\n", *seeds)
		return 2
	}
	fmt.Fprint(stdout, Table(*seeds))
	return 0
}

// Table runs the corpus over n seeds per scheduler and formats the result
// as a Markdown table: per kernel and scheduler, the runs to first
// detection and the number of detecting seeds; the last column sums the
// fixed twins' false positives over every scheduler.
func Table(n int) string {
	var b strings.Builder
	scheds := Schedulers()
	fmt.Fprintf(&b, "Seeds per cell: %d. Cell: runs to first detection / seeds detecting (- = never).\n\n", n)
	b.WriteString("| kernel | depth |")
	for _, s := range scheds {
		fmt.Fprintf(&b, " %s |", s.Name)
	}
	b.WriteString(" fixed twin false positives |\n|---|---|")
	for range scheds {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, e := range Corpus() {
		fmt.Fprintf(&b, "| %s | %d |", e.Name, e.Depth)
		fp := 0
		for _, s := range scheds {
			r := Measure(e, s, n)
			fp += r.FalsePositives
			fmt.Fprintf(&b, " %s |", r)
		}
		fmt.Fprintf(&b, " %d |\n", fp)
	}
	return b.String()
}
