// Command simrtvet reports code that escapes simrt's simulator: native
// goroutines, channels and locks, the wall clock, unseeded randomness,
// real I/O and map order reaching an output, in packages that import
// simrt. See package escape for the checks.
//
// Run it on its own, or as a vet tool:
//
//	simrtvet ./...
//	simrtvet -fix ./...                 # apply the suggested fixes
//	go vet -vettool=$(which simrtvet) ./...
//
// "simrt vet ./..." runs the same checks.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/simrt/simrt/cmd/simrtvet/escape"
)

func main() { singlechecker.Main(escape.Analyzer) }
