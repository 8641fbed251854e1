package main

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/simrt/simrt/nemesis"
)

// plan is the part of the fault schedule fixed at the start of a run: the
// nemesis schedule of single-node and network faults (drawn by package
// nemesis, with swarm testing unless -swarm=false), when the whole cluster
// crashes, how long it stays down, and how much of a write that was never
// synced survives a power loss.
type plan struct {
	sched     nemesis.Schedule
	crashes   []time.Duration // since the start, ascending
	downtime  []time.Duration
	retention float64 // per-byte survival rate of unsynced writes (prefix mode)
}

// faultKinds are the faults the nemesis draws for raftkv, with their
// durations. Disk faults that fail writes are left out: raftkv stops on a
// failed log write (a panic, which fails the run), as a fail-stop node
// should, so EIO, ENOSPC and EROFS would fail every seed that draws them.
// Whole-cluster power losses are the epochs of the run (plan.crashes).
var faultKinds = []nemesis.Fault{
	{Kind: nemesis.Partition},
	{Kind: nemesis.Bridge},
	{Kind: nemesis.Isolate},
	{Kind: nemesis.Cut},
	{Kind: nemesis.Clog},
	{Kind: nemesis.Latency, Max: time.Second},
	{Kind: nemesis.Loss, Max: time.Second},
	{Kind: nemesis.Kill, Max: 500 * time.Millisecond},
	{Kind: nemesis.PowerOff, Max: 500 * time.Millisecond},
	{Kind: nemesis.Pause, Min: 200 * time.Millisecond, Max: 1500 * time.Millisecond},
	{Kind: nemesis.ClockOffset},
	{Kind: nemesis.ClockDrift, Min: time.Second, Max: 4 * time.Second},
	{Kind: nemesis.ClockJump},
	{Kind: nemesis.DiskSlow},
}

// withoutClockFaults returns faultKinds without the clock faults: under
// it every clock runs at one rate, and a lease is safe.
func withoutClockFaults() []nemesis.Fault {
	return slices.DeleteFunc(slices.Clone(faultKinds), func(f nemesis.Fault) bool {
		switch f.Kind {
		case nemesis.ClockOffset, nemesis.ClockDrift, nemesis.ClockJump:
			return true
		}
		return false
	})
}

// maxDrift bounds the nemesis's clock drift: up to 45% either way, far
// beyond an NTP-disciplined clock, but what a VM whose clock source stalls
// gives. The lease of lease-no-drift has no margin: drift of more than the
// gap between the followers' election timeouts and the lease breaks it,
// and that gap is wide in raftkv (timeouts of 10 to 19 ticks).
const maxDrift = 0.45

// drawPlan draws a plan for a run of length d whose faults heal at heal:
// the nemesis schedule of the fault kinds kinds (nil: faultKinds), then
// zero to two whole-cluster crashes while faults are active.
func drawPlan(rng *rand.Rand, d, heal time.Duration, nodes []string, kinds []nemesis.Fault, swarm bool) (plan, error) {
	var p plan
	if kinds == nil {
		kinds = faultKinds
	}
	sched, err := nemesis.Draw(rng, nodes, nemesis.Config{
		Faults:   kinds,
		NoSwarm:  !swarm,
		Heal:     heal,
		GapMin:   100 * time.Millisecond,
		GapMax:   600 * time.Millisecond,
		MaxDrift: maxDrift,
	})
	if err != nil {
		return p, err
	}
	p.sched = sched
	n := rng.IntN(3)
	at := d / 10
	for range n {
		at += time.Duration(rng.Int64N(int64(d / 5)))
		p.crashes = append(p.crashes, at)
		p.downtime = append(p.downtime, time.Duration(rng.Int64N(int64(500*time.Millisecond))))
	}
	p.retention = []float64{0, 0.9, 0.999}[rng.IntN(3)]
	return p, nil
}

// schedule returns every fault of the plan as one nemesis schedule: the
// nemesis events and, for each whole-cluster crash, a power-loss event of
// every node lasting its downtime, in the order of their start times. It
// is the schedule that -shrink shrinks and saves, and -schedule reads.
func (p plan) schedule(nodes []string) nemesis.Schedule {
	s := nemesis.Schedule{Heal: p.sched.Heal, Events: slices.Clone(p.sched.Events)}
	for i, at := range p.crashes {
		s.Events = append(s.Events, nemesis.Event{At: at, Kind: nemesis.PowerLoss, For: max(p.downtime[i], time.Millisecond), Nodes: nodes})
	}
	slices.SortStableFunc(s.Events, func(a, b nemesis.Event) int { return cmp.Compare(a.At, b.At) })
	return s
}

// setSchedule makes s the plan's faults: its power-loss events become the
// whole-cluster crashes (the epochs of the run), the rest the nemesis
// schedule.
func (p *plan) setSchedule(s nemesis.Schedule) {
	p.sched = nemesis.Schedule{Heal: s.Heal}
	p.crashes, p.downtime = nil, nil
	for _, e := range s.Events {
		if e.Kind == nemesis.PowerLoss {
			p.crashes = append(p.crashes, e.At)
			p.downtime = append(p.downtime, e.For)
			continue
		}
		p.sched.Events = append(p.sched.Events, e)
	}
}

// after returns the part of s still to come at elapsed, with times from
// elapsed: a whole-cluster crash ends the faults active at it, and the
// next epoch resumes the schedule.
func after(s nemesis.Schedule, elapsed time.Duration) nemesis.Schedule {
	out := nemesis.Schedule{Heal: s.Heal - elapsed}
	for _, e := range s.Events {
		if e.At >= elapsed {
			e.At -= elapsed
			out.Events = append(out.Events, e)
		}
	}
	return out
}

// faultCounts counts applied faults by nemesis kind.
type faultCounts [len(kindOrder)]int

// kindOrder is the order of the kinds in faultCounts and in the summary.
var kindOrder = [...]nemesis.Kind{
	nemesis.Partition, nemesis.Bridge, nemesis.Isolate, nemesis.Cut, nemesis.Clog,
	nemesis.Latency, nemesis.Loss, nemesis.Kill, nemesis.PowerOff, nemesis.Pause,
	nemesis.ClockOffset, nemesis.ClockDrift, nemesis.ClockJump, nemesis.DiskSlow,
}

// add counts the effects of one epoch's nemesis.
func (f *faultCounts) add(effects []nemesis.Effect) {
	for _, e := range effects {
		for i, k := range kindOrder {
			if e.Event.Kind == k {
				f[i]++
			}
		}
	}
}
