package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/simrt/simrt/deterministic"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command: it parses args, prints the table to stdout and
// returns the exit code; a bad flag is one line on stderr and exit code 2.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kernels", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seeds := fs.Int("seeds", 1000, "runs per kernel and strategy (1..1000000)")
	twoRare := fs.Int("tworare", 0, "instead of the table, measure the planted two-rare-buggify bug over `trials` trials (uniform seeds vs branching)")
	limit := fs.Int("limit", 200000, "with -tworare, at most this many runs per trial")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "kernels: %v (usage: kernels [-seeds N] [-tworare TRIALS [-limit RUNS]])\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kernels: unexpected argument %q (usage: kernels [-seeds N] [-tworare TRIALS [-limit RUNS]])\n", fs.Arg(0))
		return 2
	}
	if *seeds < 1 || *seeds > 1000000 {
		fmt.Fprintf(stderr, "kernels: -seeds %d out of range 1..1000000\n", *seeds)
		return 2
	}
	if *twoRare < 0 || *twoRare > 1000 || *limit < 1 {
		fmt.Fprintf(stderr, "kernels: -tworare %d out of range 0..1000 or -limit %d below 1\n", *twoRare, *limit)
		return 2
	}
	if *twoRare > 0 {
		fmt.Fprint(stdout, TwoRare(*twoRare, *limit))
		return 0
	}
	fmt.Fprint(stdout, Table(*seeds))
	return 0
}

// Table runs the corpus and the planted programs over n runs per strategy
// and formats the result as a Markdown table: per kernel and strategy (the
// schedulers over seeds 0..n-1, fuzz and branch over n runs), the runs to
// first detection and the number of detecting runs; the last column sums
// the fixed twins' false positives over every strategy.
func Table(n int) string {
	var b strings.Builder
	strats := Strategies()
	fmt.Fprintf(&b, "Runs per cell: %d. Cell: runs to first detection / runs detecting (- = never).\n\n", n)
	b.WriteString("| kernel | depth |")
	for _, s := range strats {
		fmt.Fprintf(&b, " %s |", s.Name)
	}
	b.WriteString(" fixed twin false positives |\n|---|---|")
	for range strats {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, e := range append(Corpus(), Planted()...) {
		fmt.Fprintf(&b, "| %s | %d |", e.Name, e.Depth)
		cfg := deterministic.Config{Buggify: e.Buggify}
		fp := 0
		for _, s := range strats {
			first, hits := s.Measure(cfg, e.Bug, n)
			_, falses := s.Measure(cfg, e.Fixed, n)
			fp += falses
			fmt.Fprintf(&b, " %s |", Result{First: first, Hits: hits})
		}
		fmt.Fprintf(&b, " %d |\n", fp)
	}
	return b.String()
}
