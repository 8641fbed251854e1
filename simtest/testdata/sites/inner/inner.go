// Package inner is imported by package sites: the scanner follows imports
// within the module.
package inner

import "github.com/simrt/simrt"

// Check holds a site found through the import.
func Check(ctx simrt.Context) { simrt.Sometimes(ctx, true, "inner goal") }
