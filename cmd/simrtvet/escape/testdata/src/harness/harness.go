// Package harness has tests that start simulations.
package harness

import "github.com/simrt/simrt"

// Run is system code.
func Run(ctx simrt.Context) {}
