package deterministic

import (
	"cmp"
	"slices"
	"time"

	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/storage/faulty"
)

// FaultCount is how many faults of one kind were injected.
type FaultCount struct {
	Kind  fault.Name
	Count uint64
}

// Faults returns how many faults the run has injected so far, by kind,
// sorted by kind, leaving out kinds not injected. The kinds are fault
// names (package fault):
//
//   - the network's (see simnet.Network.Faults): "partition", "cut",
//     "isolate", "clog" count control calls; "link_reset", "hold_reset"
//     connections reset; "host_reset" node processes killed (ResetHost);
//     "link_loss" losses drawn by Link.Loss;
//   - the storage's (see faulty.Storage.Faults), summed over the
//     runtime's disk and every node's: "storage_open",
//     "storage_read", "storage_write", "storage_sync", "storage_resize",
//     "storage_remove", "storage_scan" failed operations; "crash_lost_write"
//     and "crash_torn_write" unsynced writes a crash kept none or only some
//     bytes of (counted when the run ends, so only in Coverage);
//     "disk-fail", "disk-full", "disk-readonly" operations a disk fault
//     failed and "disk-slow" operations it delayed (see SetDiskFault);
//   - "crash": 1 in a run resumed from a Checkpoint;
//   - the nodes': "node_kill", "node_power_off", "node_pause" and
//     "node_clock" (SetClock and JumpClock) count lifecycle calls,
//     "host_reset" the network resets they caused, and the storage kinds
//     above include what each node's disk injected (a PowerOff's lost and
//     torn writes among them).
//
// Fault counts are not audited: they do not change the run's fingerprint.
// Config.Hooks.Coverage sums them over a sweep (Coverage.Faults). FaultEffects
// says what each fault did.
func (c *Context) Faults() []FaultCount {
	c.rt.check()
	return countsOf(c.rt.faults())
}

// faults gathers the run's fault counts from the network, the runtime's
// storage, the nodes and their disks, summing a kind across sources.
func (rt *runtime) faults() fault.Counts {
	var sum fault.Counts
	if rt.network.sim != nil {
		sum.AddAll(rt.network.sim.Faults())
	}
	if rt.storage.fault != nil {
		sum.AddAll(rt.storage.fault.Faults())
	}
	if rt.storage.recovered {
		sum.Add(fault.Crash, 1)
	}
	rt.nodeFaults(&sum) // node lifecycle counts and every node's disk
	return sum
}

// countsOf lists counts sorted by kind.
func countsOf(c fault.Counts) []FaultCount {
	s := c.Sorted()
	out := make([]FaultCount, len(s))
	for i, x := range s {
		out[i] = FaultCount{x.Name, x.N}
	}
	return out
}

// faultTotals are a Coverage's sums of the fault counts and effects of
// the runs added to it. Guarded by Coverage.mu.
type faultTotals struct {
	counts  fault.Counts
	effects map[fault.Counter]uint64
}

// addFaults folds one run's fault counts into c.
func (c *Coverage) addFaults(fs fault.Counts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults.counts.AddAll(fs)
}

// Faults returns the faults injected by all runs added so far, by kind,
// sorted by kind (see Context.Faults for the kinds).
func (c *Coverage) Faults() []FaultCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	return countsOf(c.faults.counts)
}

// FaultEffect is what one fault instance did in a run: a network control
// call (see simnet.Network.Effects) or a disk fault or crash of the
// storage (see faulty.Storage.Effects). Effects are not audited.
type FaultEffect struct {
	// Source is where the fault acted: "network", "storage" (the
	// runtime's disk) or "node NAME" (a node's disk).
	Source string
	// Fault is the kind of instance: fault.Partition, Cut, Clog, Isolate,
	// Link, DefaultLink, HostReset (a node's process died); fault.DiskFault
	// ("disk"), fault.Crash (the end of the run, or a node's PowerOff).
	Fault fault.Name
	// At is when the instance began, in simulated time.
	At time.Time
	// Counts are its non-zero counters, in a fixed order: "sends_held",
	// "sends_delayed", "sends_dropped", "dials_refused", "dials_held",
	// "conns_reset" for the network; "ops_failed", "ops_slowed",
	// "writes_lost", "writes_torn" for the storage (see fault.Counter).
	Counts []fault.Tally
	line   string
}

// String describes the effect in one line, as the source's Effect does:
// "partition 10.0.0.1 <-> 10.0.0.2 at 1.5s: 12 sends held, 3 dials refused".
func (e FaultEffect) String() string { return e.line }

// FaultEffects returns what every fault instance of the run has done so
// far, by start time (the network's before the storage's at the same
// time). Unlike the other methods of a Context it may be called after the
// run has ended, to report on it: the effects then include the crash that
// ends the run, which its line says. Config.Hooks.Coverage sums their counts over a sweep
// (Coverage.Effects).
func (c *Context) FaultEffects() []FaultEffect {
	return c.rt.faultEffects()
}

// faultEffects gathers the run's fault effects.
func (rt *runtime) faultEffects() []FaultEffect {
	var out []FaultEffect
	if rt.network.sim != nil {
		for _, e := range rt.network.sim.Effects() {
			out = append(out, netEffect(e))
		}
	}
	if rt.storage.fault != nil {
		out = appendStorageEffects(out, "storage", rt.storage.fault)
		// After the run, the last crash of the runtime's storage is the one
		// that ended it (cleanup crashes it last): say so, since a failure
		// came before it.
		markClosingCrash(rt, out)
	}
	for _, n := range rt.nodes.list {
		out = appendStorageEffects(out, "node "+n.cfg.Name, n.disk.st.fault)
		markClosingCrash(rt, out)
	}
	slices.SortStableFunc(out, func(a, b FaultEffect) int { return a.At.Compare(b.At) })
	return out
}

// markClosingCrash marks the last effect as the crash that ended the run
// if it is one: after the run, the last crash of each disk is the one that
// ended it (cleanup crashes every disk last), and a failure came before it.
func markClosingCrash(rt *runtime, out []FaultEffect) {
	if last := len(out) - 1; rt.sh.Finished() && last >= 0 && out[last].Source != "network" && out[last].Fault == fault.Crash {
		out[last].line += " (the crash that ends the run)"
	}
}

func netEffect(e simnet.Effect) FaultEffect {
	return FaultEffect{Source: "network", Fault: e.Fault, At: e.At.UTC(), line: e.String(), Counts: e.Tallies()}
}

// appendStorageEffects appends the effects of a faulty storage, under
// source.
func appendStorageEffects(out []FaultEffect, source string, f *faulty.Storage) []FaultEffect {
	for _, e := range f.Effects() {
		out = append(out, FaultEffect{Source: source, Fault: e.Fault, At: e.At.UTC(), line: e.String(), Counts: e.Tallies()})
	}
	return out
}

// addEffects folds the counts of one run's fault effects into c.
func (c *Coverage) addEffects(es []FaultEffect) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range es {
		for _, t := range e.Counts {
			if c.faults.effects == nil {
				c.faults.effects = make(map[fault.Counter]uint64)
			}
			c.faults.effects[t.Counter] += t.N
		}
	}
}

// Effects returns what the faults of all runs added so far did, summed by
// counter ("sends_held", "ops_failed", ...; see FaultEffect.Counts),
// sorted by counter, leaving out counters that stayed zero.
func (c *Coverage) Effects() []fault.Tally {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]fault.Tally, 0, len(c.faults.effects))
	for k, n := range c.faults.effects { // sorted below
		if n > 0 {
			out = append(out, fault.Tally{Counter: k, N: n})
		}
	}
	slices.SortFunc(out, func(a, b fault.Tally) int { return cmp.Compare(a.Counter, b.Counter) })
	return out
}
