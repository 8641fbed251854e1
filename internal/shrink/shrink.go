// Package shrink minimises failing inputs by delta debugging (Zeller and
// Hildebrandt's ddmin): it removes chunks of a list, halving the chunk size
// whenever no chunk can go, and keeps every candidate that still fails.
//
// It knows nothing about what the items are. simtest shrinks decision
// streams with it (the items are the positions that keep a non-default
// decision), and the nemesis shrinks fault schedules (the items are the
// faults). The result is 1-minimal: removing any single remaining item
// makes the failure go away, or the test budget ran out first.
package shrink

import "slices"

// Minimize returns a subsequence of items, in their original order, for
// which fails still reports true, and from which no single item can be
// removed without fails reporting false. fails(items) must be true; if it
// is not, Minimize returns items unchanged (a copy).
//
// fails is called on fresh slices that Minimize does not reuse, so it may
// keep them. It must be deterministic for the result to be: Minimize
// itself draws nothing at random. The empty list is tried first, so an
// input whose failure needs none of its items shrinks to nothing.
func Minimize[T any](items []T, fails func([]T) bool) []T {
	out, _ := MinimizeWithin(items, fails, 0)
	return out
}

// MinimizeWithin is Minimize with a budget: it calls fails at most
// maxTests times (no limit when maxTests <= 0) and returns the smallest
// failing list found so far, together with the number of calls made.
// When the budget runs out the result still fails but may not be
// 1-minimal.
func MinimizeWithin[T any](items []T, fails func([]T) bool, maxTests int) ([]T, int) {
	d := ddmin[T]{fails: fails, max: maxTests}
	cur := slices.Clone(items)
	if len(cur) == 0 {
		return cur, 0
	}
	if d.try(nil) {
		return []T{}, d.tests
	}
	n := 2
	for len(cur) >= 2 && !d.spent() {
		n = min(n, len(cur))
		chunks := split(cur, n)
		reduced := false
		// A single chunk that fails on its own: restart from it.
		if n > 2 { // with n == 2 the complements below are the same tests
			for _, c := range chunks {
				if d.try(c) {
					cur, n, reduced = c, 2, true
					break
				}
			}
		}
		// A complement that fails: drop that chunk, keep the granularity.
		if !reduced {
			for i := range chunks {
				c := complement(chunks, i)
				if d.try(c) {
					cur, n, reduced = c, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(cur) {
				break // every single item is needed
			}
			n = min(2*n, len(cur))
		}
	}
	return cur, d.tests
}

type ddmin[T any] struct {
	fails func([]T) bool
	max   int
	tests int
}

func (d *ddmin[T]) spent() bool { return d.max > 0 && d.tests >= d.max }

// try runs fails on a fresh copy of c unless the budget is spent.
func (d *ddmin[T]) try(c []T) bool {
	if d.spent() {
		return false
	}
	d.tests++
	return d.fails(slices.Clone(c))
}

// split cuts s into n contiguous chunks whose lengths differ by at most one.
func split[T any](s []T, n int) [][]T {
	out := make([][]T, 0, n)
	start := 0
	for i := range n {
		end := start + (len(s)-start)/(n-i)
		out = append(out, s[start:end:end])
		start = end
	}
	return out
}

// complement concatenates every chunk but chunks[skip].
func complement[T any](chunks [][]T, skip int) []T {
	var out []T
	for i, c := range chunks {
		if i != skip {
			out = append(out, c...)
		}
	}
	return out
}
