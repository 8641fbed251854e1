package sweep

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Range is the inclusive range [lo, hi].
type Range struct{ Lo, Hi uint64 }

// Set is an ordered list of seeds, kept as ranges so that a sweep of a
// billion seeds costs nothing to describe.
type Set []Range

// Parse parses "N", "A..B" (inclusive) and comma-separated lists of
// both, such as "0..999" or "1,5,10..19". The set holds each seed once,
// in increasing order: overlapping and adjacent ranges merge, so
// "0..5,3..4" is 0..5. A list of all 2^64 seeds is refused, since its
// size does not fit in a uint64.
func Parse(s string) (Set, error) {
	var set Set
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
		set = append(set, Range{Lo: a, Hi: b})
	}
	set = merge(set)
	if len(set) == 1 && set[0] == (Range{Lo: 0, Hi: math.MaxUint64}) {
		return nil, fmt.Errorf("seeds %q: all 2^64 seeds are more than a sweep can count; the most is 2^64-1 (0..%d)", s, uint64(math.MaxUint64-1))
	}
	return set, nil
}

// merge sorts set and merges its overlapping and adjacent ranges.
func merge(set Set) Set {
	slices.SortFunc(set, func(x, y Range) int { return cmp.Compare(x.Lo, y.Lo) })
	out := set[:0]
	for _, r := range set {
		if n := len(out); n > 0 && (r.Lo <= out[n-1].Hi || r.Lo == out[n-1].Hi+1) {
			out[n-1].Hi = max(out[n-1].Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Len returns the number of seeds, counting repeats.
func (s Set) Len() uint64 {
	var n uint64
	for _, r := range s {
		n += r.Hi - r.Lo + 1
	}
	return n
}

// At returns the seed at position i < Len().
func (s Set) At(i uint64) uint64 {
	for _, r := range s {
		if n := r.Hi - r.Lo + 1; i < n {
			return r.Lo + i
		} else {
			i -= n
		}
	}
	panic("sweep: Set.At: position out of range")
}

// String renders the set in the syntax Parse reads.
func (s Set) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		if r.Lo == r.Hi {
			parts[i] = strconv.FormatUint(r.Lo, 10)
		} else {
			parts[i] = strconv.FormatUint(r.Lo, 10) + ".." + strconv.FormatUint(r.Hi, 10)
		}
	}
	return strings.Join(parts, ",")
}

// Shard selects every n-th seed of a list, starting at position i: shards
// 0/n .. n-1/n together take each seed exactly once. The zero Shard is the
// whole list (0/1).
type Shard struct{ I, N uint64 }

// whole returns sh with the zero Shard read as 0/1.
func (sh Shard) whole() Shard {
	if sh == (Shard{}) {
		return Shard{I: 0, N: 1}
	}
	return sh
}

// String renders the shard as ParseShard reads it: "i/n".
func (sh Shard) String() string {
	sh = sh.whole()
	return strconv.FormatUint(sh.I, 10) + "/" + strconv.FormatUint(sh.N, 10)
}

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
	n, err2 := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
	if !ok || err1 != nil || err2 != nil || n == 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 0 <= i < n", s)
	}
	return Shard{i, n}, nil
}

// Len returns how many of total positions fall in the shard.
func (sh Shard) Len(total uint64) uint64 {
	sh = sh.whole()
	if sh.N == 0 || sh.I >= total {
		return 0
	}
	return (total-sh.I-1)/sh.N + 1
}

// Pick returns the seeds of s in the shard, in order.
func (sh Shard) Pick(s Set) iter.Seq[uint64] {
	sh = sh.whole()
	return func(yield func(uint64) bool) {
		total := s.Len()
		for k := range sh.Len(total) {
			if !yield(s.At(sh.I + k*sh.N)) {
				return
			}
		}
	}
}

// Compact returns a Set holding seeds, in order, merging runs of
// consecutive seeds into ranges.
func Compact(seeds []uint64) Set {
	var set Set
	for _, s := range seeds {
		if n := len(set); n > 0 && set[n-1].Hi+1 == s && set[n-1].Hi != ^uint64(0) {
			set[n-1].Hi = s
			continue
		}
		set = append(set, Range{Lo: s, Hi: s})
	}
	return set
}
