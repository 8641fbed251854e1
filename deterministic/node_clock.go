package deterministic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/simrt/simrt/telemetry/audit"
)

// ErrClockRange is matched (errors.Is) by the error of a SetClock or
// JumpClock that would move a node's clock out of simulated time: before
// the Unix epoch, or at or after its end (2262-04-11, math.MaxInt64 ns
// after the epoch).
var ErrClockRange = errors.New("deterministic: node clock would leave simulated time")

// NodeClock is a node's clock: an offset from the global simulated time and
// a drift. Drift is the fraction by which the node's durations are longer
// in global time: with Drift 200e-6 (a clock 200 ppm slow), a node's
// Sleep(1 s) lasts 1.0002 s of global time, and its Now advances by
// 1/(1+Drift) s per global second. |Drift| must be below 0.5.
type NodeClock struct {
	Offset time.Duration
	Drift  float64
}

func (c NodeClock) validate() error {
	if !(c.Drift > -0.5 && c.Drift < 0.5) {
		return errors.New("clock drift must be in (-0.5, 0.5)")
	}
	return nil
}

// validateAt is validate for a clock starting at global time now: its
// offset must keep it in simulated time, [0, never).
func (c NodeClock) validateAt(now int64) error {
	if err := c.validate(); err != nil {
		return err
	}
	if l := now + int64(c.Offset); c.Offset < 0 && l < 0 || c.Offset > 0 && now >= never-int64(c.Offset) {
		return fmt.Errorf("clock offset %v at %v: %w", c.Offset, time.Unix(0, now).UTC().Format(time.RFC3339Nano), ErrClockRange)
	}
	return nil
}

// clockState maps global time to a node's local time: local = anchorL +
// (global-anchorG)/(1+drift).
type clockState struct {
	anchorG, anchorL int64
	cfg              NodeClock
}

func (c *clockState) init(now int64, cfg NodeClock) {
	c.anchorG, c.anchorL, c.cfg = now, addTime(now, cfg.Offset), cfg
}

// local returns the node's time at global time g.
func (c *clockState) local(g int64) int64 {
	el := g - c.anchorG
	if c.cfg.Drift != 0 {
		el = int64(math.Floor(float64(el) / (1 + c.cfg.Drift)))
	}
	return c.anchorL + el
}

// global returns how long a local duration d lasts in global time:
// ceil(d·(1+drift)), saturated.
func (c *clockState) global(d time.Duration) time.Duration {
	if c.cfg.Drift == 0 || d <= 0 {
		return d
	}
	g := math.Ceil(float64(d) * (1 + c.cfg.Drift))
	if g >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(g)
}

// Now returns the node's clock now.
func (n *Node) Now() time.Time {
	n.rt.check()
	return time.Unix(0, n.clock.local(n.rt.now)).UTC()
}

// SetClock changes the node's clock from now on: its drift becomes c.Drift
// and its offset c.Offset; Now stays continuous apart from the change of
// offset. Pending sleeps and timers keep their global deadlines. It fails,
// changing nothing, on a drift of 0.5 or more, and (with ErrClockRange) if
// the change of offset would move the clock out of simulated time, as
// JumpClock does.
func (n *Node) SetClock(c NodeClock) error {
	n.rt.check()
	if err := c.validate(); err != nil {
		return err
	}
	now := n.rt.now
	d := c.Offset - n.clock.cfg.Offset
	if (d < 0) != (c.Offset < n.clock.cfg.Offset) { // the difference overflows
		return fmt.Errorf("deterministic: SetClock(offset %v) of node %s: %w", c.Offset, n.cfg.Name, ErrClockRange)
	}
	l, err := n.clockStep("SetClock", d)
	if err != nil {
		return err
	}
	n.clock.anchorG, n.clock.anchorL, n.clock.cfg = now, l, c
	n.rt.nodes.counts.clock++
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(c.Offset))
	binary.BigEndian.PutUint64(b[8:], math.Float64bits(c.Drift))
	n.rt.auditor.Event(audit.Node, []byte(n.cfg.Name), []byte("set_clock"), b[:])
	return nil
}

// JumpClock steps the node's clock by d (forward or back), as an NTP step
// does: Now jumps, while pending sleeps and timers, which are monotonic,
// keep their global deadlines. It fails, changing nothing, if the node's
// clock would leave simulated time: read before the Unix epoch, or at or
// after its end (2262-04-11, math.MaxInt64 ns after the epoch), the range
// Config.Start allows; the error matches ErrClockRange.
func (n *Node) JumpClock(d time.Duration) error {
	n.rt.check()
	if _, err := n.clockStep("JumpClock", d); err != nil {
		return err
	}
	n.clock.anchorL += int64(d)
	n.rt.nodes.counts.clock++
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(d))
	n.rt.auditor.Event(audit.Node, []byte(n.cfg.Name), []byte("jump_clock"), b[:])
	return nil
}

// clockStep returns the node's clock now moved by d, or an error naming op
// if it would be out of simulated time: [0, never).
func (n *Node) clockStep(op string, d time.Duration) (int64, error) {
	l := n.clock.local(n.rt.now) // in [0, never): l+d cannot overflow for d < 0
	if d < 0 && l+int64(d) < 0 || d > 0 && l >= never-int64(d) {
		return 0, fmt.Errorf("deterministic: %s(%v) of node %s: its clock, %v, would leave simulated time [1970-01-01, 2262-04-11): %w",
			op, d, n.cfg.Name, time.Unix(0, l).UTC().Format(time.RFC3339Nano), ErrClockRange)
	}
	return l + int64(d), nil
}

// Clock returns the node's clock configuration now (its offset does not
// include jumps).
func (n *Node) Clock() NodeClock { return n.clock.cfg }

// now is Now of a context of the process: the node's clock.
func (p *incarnation) now() time.Time { return time.Unix(0, p.n.clock.local(p.n.rt.now)).UTC() }

// untilGlobal returns the global instant at which the node's clock reads
// t, given that it reads it later than now (ceil, saturated).
func (p *incarnation) untilGlobal(t time.Time) int64 {
	rt := p.n.rt
	local := p.n.clock.local(rt.now)
	target := simNanos(t)
	if target <= local {
		return rt.now
	}
	if target == never {
		return never
	}
	return addTime(rt.now, p.n.clock.global(time.Duration(target-local)))
}
