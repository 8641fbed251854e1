package simnet

import (
	"math/bits"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"time"
)

// Link sets how bytes travel from one host to another. The zero value is a
// perfect link: no delay, unlimited bandwidth, no loss, no resets. A link
// is directed: the link from a to b and the link from b to a are set apart.
type Link struct {
	// Latency is the one-way delay of every byte. Zero means none.
	Latency time.Duration
	// Jitter adds a uniform random delay in [0, Jitter] to each Send. Bytes
	// of one connection still arrive in the order they were sent.
	Jitter time.Duration
	// Bandwidth is the link's capacity in bytes per second, shared by every
	// connection that uses the link. Zero means unlimited.
	Bandwidth int64
	// Loss is the probability in [0, 1] that a Send's bytes are lost and
	// retransmitted; each retransmission adds Retransmit (doubled on every
	// further loss, at most 8 times). The bytes always arrive in the end.
	Loss float64
	// Retransmit is the delay one loss adds. Zero means 200ms.
	Retransmit time.Duration
	// Reset is the probability in [0, 1] that a Send breaks the connection:
	// that Send fails with ErrSendFailed, and every later operation on
	// either end fails (ErrSendFailed, ErrRecvFailed, then ErrClosed).
	Reset float64
}

// maxRetransmits caps the retransmissions of one Send.
const maxRetransmits = 8

// perfect reports whether the link adds no delay and draws no randomness.
func (l Link) perfect() bool { return l == Link{} }

// validate panics on a link no simulation can honour.
func (l Link) validate() {
	switch {
	case l.Latency < 0 || l.Jitter < 0 || l.Retransmit < 0:
		panic("simnet: Link durations must not be negative")
	case l.Bandwidth < 0:
		panic("simnet: Link.Bandwidth must not be negative")
	case !(l.Loss >= 0 && l.Loss <= 1):
		panic("simnet: Link.Loss must lie in [0, 1]")
	case !(l.Reset >= 0 && l.Reset <= 1):
		panic("simnet: Link.Reset must lie in [0, 1]")
	}
}

// String renders the link for the auditor and for test output.
func (l Link) String() string {
	b := []byte("latency=")
	b = append(b, l.Latency.String()...)
	b = append(b, " jitter="...)
	b = append(b, l.Jitter.String()...)
	b = append(b, " bandwidth="...)
	b = strconv.AppendInt(b, l.Bandwidth, 10)
	b = append(b, " loss="...)
	b = strconv.AppendFloat(b, l.Loss, 'g', -1, 64)
	b = append(b, " retransmit="...)
	b = append(b, l.Retransmit.String()...)
	b = append(b, " reset="...)
	b = strconv.AppendFloat(b, l.Reset, 'g', -1, 64)
	return string(b)
}

// chance draws from rng and reports true with probability p. The endpoints
// draw nothing, so a link without faults leaves the generator untouched.
func chance(rng *rand.Rand, p float64) bool {
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	return rng.Float64() < p
}

// transit is the pure core of the link model. Given the time now, the time
// the link's transmitter is busy until and the arrival time of the
// connection's previous bytes, it returns when n bytes sent now arrive and
// when the transmitter is free again. It draws from rng only for jitter and
// loss, and only when they are configured.
func (l Link) transit(now, busy, last time.Time, n int, rng *rand.Rand, lost *uint64) (arrive, free time.Time) {
	start := now
	if busy.After(start) {
		start = busy
	}
	free = start
	if l.Bandwidth > 0 {
		free = start.Add(txTime(n, l.Bandwidth))
	}
	arrive = free.Add(l.Latency)
	if l.Jitter > 0 {
		arrive = arrive.Add(time.Duration(rng.Int64N(int64(l.Jitter) + 1)))
	}
	rto := l.Retransmit
	if rto == 0 {
		rto = 200 * time.Millisecond
	}
	for i := 0; i < maxRetransmits && chance(rng, l.Loss); i++ {
		arrive = arrive.Add(rto)
		rto *= 2
		*lost++
	}
	if last.After(arrive) {
		arrive = last // in order on one connection
	}
	return arrive, free
}

// txTime is how long n bytes take to leave a link of bw bytes per second,
// rounded up to the nanosecond.
func txTime(n int, bw int64) time.Duration {
	whole, rem := int64(n)/bw, int64(n)%bw
	hi, lo := bits.Mul64(uint64(rem), uint64(time.Second))
	frac, r := bits.Div64(hi, lo, uint64(bw)) // hi < bw since rem < bw
	if r > 0 {
		frac++
	}
	return time.Duration(whole)*time.Second + time.Duration(frac)
}

// pair names a directed link.
type pair struct{ from, to netip.Addr }

// host is one IP address of the simulation.
type host struct {
	ip         netip.Addr
	isolated   bool
	isolatedBy *Effect // the Isolate that set isolated
	known      bool    // a view, listener or connection uses it
	origin     bool    // a view was built for it or a dial left from it
}

// link is the live state of one directed link.
type link struct {
	from, to *host
	cfg      Link
	explicit bool      // cfg was set with SetLink, not inherited from the default
	cut      bool      // a partition drops this direction
	clogged  bool      // everything is held until Release
	busy     time.Time // the transmitter is busy until then
	back     *link     // the link the other way, once the pair has been looked up (see Network.links)

	// The effects the link's state counts on (nil when not set by a fault).
	cutBy, clogBy, cfgBy *Effect
}

// blocked reports whether bytes cannot cross the link now.
func (l *link) blocked() bool {
	return l.cut || l.clogged || l.from.isolated || l.to.isolated
}

// severed reports whether a partition (not a clog) stops the link.
func (l *link) severed() bool {
	return l.cut || l.from.isolated || l.to.isolated
}
