// Package fault names the faults simrt injects, in one place: the typed
// set of fault names (Name) shared by the simulated network
// (network/simnet), the storage faults (storage/faulty), the simulator's
// node controls (deterministic) and the nemesis; the families they belong
// to; the parsing of a name, which also accepts the older spellings; and
// the shape in which faults are counted (Counts, Count) and in which a
// fault instance reports what it did (Tally, by Counter).
//
// A name is both what a schedule file writes ("disk-fail", "partition")
// and the key of the run's fault counts: a fault the nemesis draws and the
// operations it fails are counted under the same name. The package is a
// leaf: it imports only the standard library, so every layer can share it.
package fault

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Name is the name of a kind of fault, as schedule files and fault counts
// spell it. The constants below are every name simrt uses; Parse reads
// them, and the older spellings, back.
type Name string

// String returns the name.
func (n Name) String() string { return string(n) }

// Family groups fault names by what they break.
type Family uint8

// The families.
const (
	// Network faults break links: partitions, cuts, clogs, latency, loss
	// and connection resets.
	Network Family = iota + 1
	// Process faults stop a node's process: kills, power cuts, pauses and
	// the crash that ends a run.
	Process
	// Clock faults move or skew a node's clock.
	Clock
	// Disk faults break storage: a standing disk fault (slow, failing,
	// full, read-only), failed operations and writes a crash lost.
	Disk
)

// String returns the family's name ("network", "process", "clock", "disk").
func (f Family) String() string {
	switch f {
	case Network:
		return "network"
	case Process:
		return "process"
	case Clock:
		return "clock"
	case Disk:
		return "disk"
	}
	return fmt.Sprintf("Family(%d)", uint8(f))
}

// The fault names, by family. A name with an Old spelling in the table
// below is parsed from either.
const (
	// Partition cuts two groups of hosts apart, both ways (a nemesis kind,
	// and simnet's count of Partition calls).
	Partition Name = "partition"
	// Bridge splits the nodes in two halves that share one node.
	Bridge Name = "bridge"
	// Isolate cuts one host from every other.
	Isolate Name = "isolate"
	// Cut cuts one link, one way.
	Cut Name = "cut"
	// Clog holds everything on one link until released.
	Clog Name = "clog"
	// Latency adds latency and jitter to a node's links.
	Latency Name = "latency"
	// Loss makes a fraction of a node's sends lost and retransmitted.
	Loss Name = "loss"
	// Link is a link set by simnet's SetLink (a fault instance).
	Link Name = "link"
	// DefaultLink is the default link set by simnet's SetDefaultLink (a
	// fault instance).
	DefaultLink Name = "default_link"
	// LinkReset counts connections reset by a link's Reset draw.
	LinkReset Name = "link_reset"
	// HoldReset counts connections reset by simnet's Config.HoldTimeout.
	HoldReset Name = "hold_reset"
	// HostReset counts calls of simnet's ResetHost (a node's process
	// died) and the connections they reset.
	HostReset Name = "host_reset"
	// LinkLoss counts losses drawn by a link's Loss.
	LinkLoss Name = "link_loss"

	// Kill kills a node's process (kill -9).
	Kill Name = "kill"
	// PowerOff cuts one node's power.
	PowerOff Name = "poweroff"
	// Pause stops one node's world.
	Pause Name = "pause"
	// PowerLoss cuts the power of every node at once.
	PowerLoss Name = "power-loss"
	// NodeKill counts calls of a node's Kill.
	NodeKill Name = "node_kill"
	// NodePowerOff counts calls of a node's PowerOff.
	NodePowerOff Name = "node_power_off"
	// NodePause counts calls of a node's Pause.
	NodePause Name = "node_pause"
	// Crash is a crash of a storage (the end of a run, a node's PowerOff),
	// and counts runs resumed from a checkpoint.
	Crash Name = "crash"

	// ClockOffset moves a node's clock by an offset.
	ClockOffset Name = "clock-offset"
	// ClockDrift makes a node's clock run fast or slow.
	ClockDrift Name = "clock-drift"
	// ClockJump steps a node's clock.
	ClockJump Name = "clock-jump"
	// NodeClock counts calls of a node's SetClock and JumpClock.
	NodeClock Name = "node_clock"

	// DiskSlow makes every storage operation slow (DiskFault.Slow); it
	// counts the operations it delayed.
	DiskSlow Name = "disk-slow"
	// DiskFail makes the storage fail, EIO (DiskFault.Fail); it counts the
	// operations it failed.
	DiskFail Name = "disk-fail"
	// DiskFull makes the storage full, ENOSPC (DiskFault.Full); it counts
	// the operations it failed.
	DiskFull Name = "disk-full"
	// DiskReadOnly makes the storage read-only, EROFS
	// (DiskFault.ReadOnly); it counts the operations it failed.
	DiskReadOnly Name = "disk-readonly"
	// DiskFault is a standing disk fault as a fault instance (faulty's
	// Effect: from one SetDiskFault call to the next).
	DiskFault Name = "disk"
	// StorageOpen counts opens failed by the storage's fault rates.
	StorageOpen Name = "storage_open"
	// StorageRead counts reads failed by the storage's fault rates.
	StorageRead Name = "storage_read"
	// StorageWrite counts writes failed by the storage's fault rates.
	StorageWrite Name = "storage_write"
	// StorageSync counts syncs failed by the storage's fault rates.
	StorageSync Name = "storage_sync"
	// StorageResize counts resizes failed by the storage's fault rates.
	StorageResize Name = "storage_resize"
	// StorageRemove counts removals failed by the storage's fault rates.
	StorageRemove Name = "storage_remove"
	// StorageScan counts scans failed by the storage's fault rates.
	StorageScan Name = "storage_scan"
	// CrashLostWrite counts unsynced writes of which a crash kept nothing.
	CrashLostWrite Name = "crash_lost_write"
	// CrashTornWrite counts unsynced writes a crash kept only in part.
	CrashTornWrite Name = "crash_torn_write"
)

// info is one entry of the name table.
type info struct {
	name   Name
	family Family
	old    string // an older spelling Parse accepts, or ""
}

// names is the table of fault names, in family order.
var names = [...]info{
	{Partition, Network, ""}, {Bridge, Network, ""}, {Isolate, Network, ""}, {Cut, Network, ""},
	{Clog, Network, ""}, {Latency, Network, ""}, {Loss, Network, ""}, {Link, Network, ""},
	{DefaultLink, Network, ""}, {LinkReset, Network, ""}, {HoldReset, Network, ""},
	{HostReset, Network, ""}, {LinkLoss, Network, ""},

	{Kill, Process, ""}, {PowerOff, Process, ""}, {Pause, Process, ""}, {PowerLoss, Process, ""},
	{NodeKill, Process, ""}, {NodePowerOff, Process, ""}, {NodePause, Process, ""}, {Crash, Process, ""},

	{ClockOffset, Clock, ""}, {ClockDrift, Clock, ""}, {ClockJump, Clock, ""}, {NodeClock, Clock, ""},

	// storage/faulty counted the disk faults as "disk_fail" ... before
	// they took the nemesis's names.
	{DiskSlow, Disk, "disk_slow"}, {DiskFail, Disk, "disk_fail"}, {DiskFull, Disk, "disk_full"},
	{DiskReadOnly, Disk, "disk_readonly"}, {DiskFault, Disk, ""},
	{StorageOpen, Disk, ""}, {StorageRead, Disk, ""}, {StorageWrite, Disk, ""}, {StorageSync, Disk, ""},
	{StorageResize, Disk, ""}, {StorageRemove, Disk, ""}, {StorageScan, Disk, ""},
	{CrashLostWrite, Disk, ""}, {CrashTornWrite, Disk, ""},
}

func lookup(n Name) (info, bool) {
	for _, i := range names {
		if i.name == n {
			return i, true
		}
	}
	return info{}, false
}

// Names returns every fault name simrt uses, in family order.
func Names() []Name {
	out := make([]Name, len(names))
	for i, in := range names {
		out[i] = in.name
	}
	return out
}

// Family returns the family of n, or 0 for a name simrt does not use.
func (n Name) Family() Family {
	i, _ := lookup(n)
	return i.family
}

// Known reports whether n is one of the names simrt uses.
func (n Name) Known() bool {
	_, ok := lookup(n)
	return ok
}

// Parse returns the fault named s, as Name.String spells it or in an
// older spelling ("disk_fail" for DiskFail).
func Parse(s string) (Name, error) {
	for _, i := range names {
		if string(i.name) == s || i.old != "" && i.old == s {
			return i.name, nil
		}
	}
	return "", fmt.Errorf("fault: unknown fault %q", s)
}

// Canonical returns s as a Name: the name it spells (in its current
// spelling, for an old one), or s itself for a name simrt does not know,
// so that counts read from elsewhere (a newer tool's file) are kept.
func Canonical(s string) Name {
	if n, err := Parse(s); err == nil {
		return n
	}
	return Name(s)
}

// Count is how many faults of one kind were injected.
type Count struct {
	Name Name
	N    uint64
}

// Counts counts faults by name. Its zero value is nil, ready for
// reading; Add allocates.
type Counts map[Name]uint64

// Add adds n faults named name; adding zero does nothing.
func (c *Counts) Add(name Name, n uint64) {
	if n == 0 {
		return
	}
	if *c == nil {
		*c = Counts{}
	}
	(*c)[name] += n
}

// AddAll adds every count of o to c.
func (c *Counts) AddAll(o Counts) {
	for name, n := range o { // summed: order does not matter
		c.Add(name, n)
	}
}

// Sorted returns the non-zero counts, sorted by name.
func (c Counts) Sorted() []Count {
	out := make([]Count, 0, len(c))
	for name, n := range c { // sorted below
		if n > 0 {
			out = append(out, Count{name, n})
		}
	}
	slices.SortFunc(out, func(a, b Count) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// String renders the counts sorted by name: "clog 12, partition 41".
func (c Counts) String() string {
	s := c.Sorted()
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprintf("%s %d", x.Name, x.N)
	}
	return strings.Join(parts, ", ")
}

// Counter names one thing a fault instance did: a send it held, an
// operation it failed.
type Counter string

// The counters, the network's then the storage's.
const (
	// SendsHeld counts sends whose bytes a cut, partition, isolation or
	// clog held.
	SendsHeld Counter = "sends_held"
	// SendsDelayed counts sends a link's latency, jitter, bandwidth or
	// loss delayed.
	SendsDelayed Counter = "sends_delayed"
	// SendsDropped counts sends discarded in flight by a reset.
	SendsDropped Counter = "sends_dropped"
	// DialsRefused counts dials that failed at once across a cut.
	DialsRefused Counter = "dials_refused"
	// DialsHeld counts dials that had to wait.
	DialsHeld Counter = "dials_held"
	// ConnsReset counts connections reset.
	ConnsReset Counter = "conns_reset"
	// OpsFailed counts storage operations a disk fault failed.
	OpsFailed Counter = "ops_failed"
	// OpsSlowed counts storage operations a disk fault delayed.
	OpsSlowed Counter = "ops_slowed"
	// WritesLost counts unsynced writes of which a crash kept nothing.
	WritesLost Counter = "writes_lost"
	// WritesTorn counts unsynced writes a crash kept only in part.
	WritesTorn Counter = "writes_torn"
)

// Tally is one counter of what a fault instance did: the shape in which
// the network's and the storage's effects report their counts.
type Tally struct {
	Counter Counter
	N       uint64
}

// NonZero returns the tallies of ts that are not zero, in order, reusing
// ts.
func NonZero(ts ...Tally) []Tally {
	out := ts[:0]
	for _, t := range ts {
		if t.N > 0 {
			out = append(out, t)
		}
	}
	return out
}
