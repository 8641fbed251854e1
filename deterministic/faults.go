package deterministic

import (
	"cmp"
	"slices"
)

// FaultCount is how many faults of one kind were injected.
type FaultCount struct {
	Kind  string
	Count uint64
}

// Faults returns how many faults the run has injected so far, by kind,
// sorted by kind, leaving out kinds not injected. The kinds are:
//
//   - the network's (see simnet.Network.Faults): "partition", "cut",
//     "isolate", "clog" count control calls; "link_reset", "hold_reset"
//     connections reset; "link_loss" losses drawn by Link.Loss;
//   - the storage's (see faulty.Storage.Faults): "storage_open",
//     "storage_read", "storage_write", "storage_sync", "storage_resize",
//     "storage_remove", "storage_scan" failed operations; "crash_lost_write"
//     and "crash_torn_write" unsynced writes a crash kept none or only some
//     bytes of (counted when the run ends, so only in Coverage);
//     "disk_fail", "disk_full", "disk_readonly" operations a disk fault
//     failed and "disk_slow" operations it delayed (see SetDiskFault);
//   - "crash": 1 in a run resumed from a Checkpoint;
//   - the nodes': "node_kill", "node_power_off", "node_pause" and
//     "node_clock" (SetClock and JumpClock) count lifecycle calls,
//     "host_reset" the network resets they caused, and the storage kinds
//     above include what each node's disk injected (a PowerOff's lost and
//     torn writes among them).
//
// Fault counts are not audited: they do not change the run's fingerprint.
// Config.Coverage sums them over a sweep (Coverage.Faults).
func (c *Context) Faults() []FaultCount {
	c.rt.check()
	return c.rt.faults()
}

// faults gathers the run's fault counts from the network and the storage.
func (rt *runtime) faults() []FaultCount {
	var out []FaultCount
	at := map[string]int{} // kind → index in out, so that sources add up
	add := func(m map[string]uint64) {
		for k, n := range m { // sorted below
			if i, ok := at[k]; ok {
				out[i].Count += n
				continue
			}
			at[k] = len(out)
			out = append(out, FaultCount{k, n})
		}
	}
	if rt.network.sim != nil {
		add(rt.network.sim.Faults())
	}
	if rt.storage.fault != nil {
		add(rt.storage.fault.Faults())
	}
	if rt.storage.recovered {
		out = append(out, FaultCount{"crash", 1})
	}
	rt.nodeFaults(add)
	sortFaults(out)
	return out
}

func sortFaults(fs []FaultCount) {
	slices.SortFunc(fs, func(a, b FaultCount) int { return cmp.Compare(a.Kind, b.Kind) })
}

// addFaults folds one run's fault counts into c.
func (c *Coverage) addFaults(fs []FaultCount) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(fs) > 0 && c.faults == nil {
		c.faults = make(map[string]uint64)
	}
	for _, f := range fs {
		c.faults[f.Kind] += f.Count
	}
}

// Faults returns the faults injected by all runs added so far, by kind,
// sorted by kind (see Context.Faults for the kinds).
func (c *Coverage) Faults() []FaultCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]FaultCount, 0, len(c.faults))
	for k, n := range c.faults { // sorted below
		out = append(out, FaultCount{k, n})
	}
	sortFaults(out)
	return out
}
