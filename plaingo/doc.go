// Package plaingo runs plain Go (goroutines, native channels, select) on
// the deterministic simulator: it implements the hooks that code rewritten
// by `simrt test` calls (the overlaid standard-library package simrthook)
// and runs a package's own TestX functions as one simulation per seed.
//
// Every other file of the package is built only with the simrt_plain build
// tag, which `simrt test` sets together with the overlay that provides
// simrthook; without them the package is empty. See docs/PLAIN-GO.md.
package plaingo
