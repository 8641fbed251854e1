package simrt

// Map applies f to every element of in using s and returns the results in
// input order.
func Map[T, U any](s Strategy, in []T, f func(T) U) []U {
	out := make([]U, len(in))
	s.ForEach(len(in), func(i int) { out[i] = f(in[i]) })
	return out
}

// Fold reduces in with s: the input is cut into one chunk per unit of
// parallelism, each chunk is folded from init() with step, and the chunk
// results are merged in order with merge. The result is the same for every
// parallelism when merge is associative.
func Fold[T, A any](s Strategy, in []T, init func() A, step func(A, T) A, merge func(A, A) A) A {
	p := max(1, min(s.Parallelism(), len(in)))
	parts := make([]A, p)
	s.ForEach(p, func(k int) {
		lo, hi := k*len(in)/p, (k+1)*len(in)/p
		acc := init()
		for _, v := range in[lo:hi] {
			acc = step(acc, v)
		}
		parts[k] = acc
	})
	acc := parts[0]
	for _, part := range parts[1:] {
		acc = merge(acc, part)
	}
	return acc
}

// Adaptive chooses between a serial and a parallel form of the same work of
// n items: it calls parallel when s would split the items across more than
// one worker (s.Parallelism() and n both above 1), serial otherwise, and
// returns the result. The choice depends only on the parallelism s plans
// for, so a simulation (whose strategies run inline but plan for the
// parallelism asked for) takes the same branch as production.
func Adaptive[T any](s Strategy, n int, serial, parallel func() T) T {
	if min(s.Parallelism(), n) > 1 {
		return parallel()
	}
	return serial()
}
