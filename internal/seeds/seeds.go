package simtest

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// seedRange is the inclusive range [lo, hi].
type seedRange struct{ lo, hi uint64 }

// seedSet is an ordered list of seeds, kept as ranges so that a sweep of a
// billion seeds costs nothing to describe.
type seedSet []seedRange

// parseSeeds parses "N", "A..B" (inclusive) and comma-separated lists of
// both, such as "0..999" or "1,5,10..19".
func parseSeeds(s string) (seedSet, error) {
	var set seedSet
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "..")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seeds %q: %q is not a seed or a range A..B", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 64); err != nil {
				return nil, fmt.Errorf("seeds %q: %q is not a seed or a range A..B", s, part)
			}
			if b < a {
				return nil, fmt.Errorf("seeds %q: range %q is empty", s, part)
			}
		}
		set = append(set, seedRange{a, b})
	}
	return set, nil
}

// Len returns the number of seeds, counting repeats.
func (s seedSet) Len() uint64 {
	var n uint64
	for _, r := range s {
		n += r.hi - r.lo + 1
	}
	return n
}

// At returns the seed at position i < Len().
func (s seedSet) At(i uint64) uint64 {
	for _, r := range s {
		if n := r.hi - r.lo + 1; i < n {
			return r.lo + i
		} else {
			i -= n
		}
	}
	panic("simtest: seed position out of range")
}

// String renders the set in the syntax parseSeeds reads.
func (s seedSet) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		if r.lo == r.hi {
			parts[i] = strconv.FormatUint(r.lo, 10)
		} else {
			parts[i] = strconv.FormatUint(r.lo, 10) + ".." + strconv.FormatUint(r.hi, 10)
		}
	}
	return strings.Join(parts, ",")
}

// shard selects every n-th seed of a list, starting at position i: shards
// 0/n .. n-1/n together take each seed exactly once.
type shard struct{ i, n uint64 }

// parseShard parses "i/n" with 0 <= i < n.
func parseShard(s string) (shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
	n, err2 := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
	if !ok || err1 != nil || err2 != nil || n == 0 || i >= n {
		return shard{}, fmt.Errorf("shard %q: want i/n with 0 <= i < n", s)
	}
	return shard{i, n}, nil
}

// Len returns how many of total positions fall in the shard.
func (sh shard) Len(total uint64) uint64 {
	if sh.i >= total {
		return 0
	}
	return (total-sh.i-1)/sh.n + 1
}

// Pick returns the seeds of s in the shard, in order.
func (sh shard) Pick(s seedSet) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		total := s.Len()
		for k := range sh.Len(total) {
			if !yield(s.At(sh.i + k*sh.n)) {
				return
			}
		}
	}
}
