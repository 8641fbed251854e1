//go:build ignore

package sites

import "github.com/simrt/simrt"

// Ignored is excluded by its build constraint.
func Ignored(ctx simrt.Context) { simrt.Reachable(ctx, "excluded by a build tag") }
