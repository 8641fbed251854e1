package nemesis

import "fmt"

// Kind is a kind of fault.
type Kind uint8

// The fault kinds, in the order Draw and the schedule file know them.
const (
	// Partition cuts a random minority of the nodes from the rest, both
	// ways.
	Partition Kind = iota + 1
	// Bridge splits the nodes in two halves that share one node, the
	// bridge: it reaches both halves, which do not reach each other.
	Bridge
	// Isolate cuts one node from every other host, both ways.
	Isolate
	// Cut cuts the link from one node to another, one way.
	Cut
	// Clog holds everything on the link from one node to another, one way,
	// until it ends.
	Clog
	// Latency adds latency and jitter to every link from and to one node.
	Latency
	// Loss makes a fraction of the sends from and to one node lost and
	// retransmitted.
	Loss
	// Kill kills one node's process (kill -9); it restarts when the fault
	// ends.
	Kill
	// PowerOff cuts one node's power (its unsynced writes follow the
	// storage fault model); it restarts when the fault ends.
	PowerOff
	// Pause stops one node's world (a GC pause, SIGSTOP); it resumes when
	// the fault ends.
	Pause
	// ClockOffset moves one node's clock by an offset.
	ClockOffset
	// ClockDrift makes one node's clock run fast or slow.
	ClockDrift
	// ClockJump steps one node's clock (an NTP step), and back when the
	// fault ends.
	ClockJump
	// DiskSlow makes every storage operation of one node slow.
	DiskSlow
	// DiskFail makes one node's storage fail (EIO).
	DiskFail
	// DiskFull makes one node's storage full (ENOSPC).
	DiskFull
	// DiskReadOnly makes one node's storage read-only (EROFS).
	DiskReadOnly
	// PowerLoss cuts the power of every node at once; they restart when
	// the fault ends.
	PowerLoss

	numKinds = int(PowerLoss)
)

var kindNames = [...]string{
	Partition:    "partition",
	Bridge:       "bridge",
	Isolate:      "isolate",
	Cut:          "cut",
	Clog:         "clog",
	Latency:      "latency",
	Loss:         "loss",
	Kill:         "kill",
	PowerOff:     "poweroff",
	Pause:        "pause",
	ClockOffset:  "clock-offset",
	ClockDrift:   "clock-drift",
	ClockJump:    "clock-jump",
	DiskSlow:     "disk-slow",
	DiskFail:     "disk-fail",
	DiskFull:     "disk-full",
	DiskReadOnly: "disk-readonly",
	PowerLoss:    "power-loss",
}

// Kinds returns every fault kind, in order.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i + 1)
	}
	return ks
}

// String returns the kind's name as the schedule file spells it
// ("partition", "clock-drift").
func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

func (k Kind) valid() bool { return k >= Partition && k <= PowerLoss }

// ParseKind returns the kind named s, as Kind.String spells it.
func ParseKind(s string) (Kind, error) {
	for k := Partition; k <= PowerLoss; k++ {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("nemesis: unknown fault kind %q", s)
}

// shape says what an event of the kind targets.
type shape uint8

const (
	oneNode  shape = iota // {n2}
	twoSides              // {n1,n2} | {n3,n4,n5}
	oneWay                // {n1} -> {n2}
	allNodes              // {n1,n2,n3}
)

func (k Kind) shape() shape {
	switch k {
	case Partition, Bridge:
		return twoSides
	case Cut, Clog:
		return oneWay
	case PowerLoss:
		return allNodes
	}
	return oneNode
}

// class groups the kinds that Draw never lets overlap on one node, so that
// undoing one never undoes another.
type class uint8

const (
	classNet     class = iota // partitions, cuts, clogs: counted per link, overlap freely
	classLink                 // latency, loss: one at a time in the whole cluster
	classProcess              // kill, power-off, pause, power loss
	classClock
	classDisk
)

func (k Kind) class() class {
	switch k {
	case Latency, Loss:
		return classLink
	case Kill, PowerOff, Pause, PowerLoss:
		return classProcess
	case ClockOffset, ClockDrift, ClockJump:
		return classClock
	case DiskSlow, DiskFail, DiskFull, DiskReadOnly:
		return classDisk
	}
	return classNet
}
