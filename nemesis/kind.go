package nemesis

import (
	"fmt"

	"github.com/simrt/simrt/fault"
)

// Kind is a kind of fault.
type Kind uint8

// Kinds returns every fault kind, in order.
func Kinds() []Kind {
	ks := make([]Kind, len(kinds)-1)
	for i := range ks {
		ks[i] = Kind(i + 1)
	}
	return ks
}

// String returns the kind's name as the schedule file spells it
// ("partition", "clock-drift"): its fault.Name.
func (k Kind) String() string {
	if k.valid() {
		return kinds[k].name.String()
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Name returns the kind's fault name, the key its faults are counted
// under.
func (k Kind) Name() fault.Name {
	if k.valid() {
		return kinds[k].name
	}
	return ""
}

// Family returns the kind's family (network, process, clock, disk).
func (k Kind) Family() fault.Family { return k.Name().Family() }

func (k Kind) valid() bool { return k >= 1 && int(k) < len(kinds) }

// spec returns the kind's table entry; k must be valid.
func (k Kind) spec() *kindSpec { return &kinds[k] }

// ParseKind returns the kind named s, as Kind.String spells it (or in an
// older spelling fault.Parse accepts).
func ParseKind(s string) (Kind, error) {
	name := fault.Canonical(s)
	for k := 1; k < len(kinds); k++ {
		if kinds[k].name == name {
			return Kind(k), nil
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

func (k Kind) shape() shape { return k.spec().shape }

// class groups the kinds that Draw never lets overlap on one node, so that
// undoing one never undoes another.
type class uint8

const (
	classNet     class = iota // partitions, cuts, clogs: counted per link, overlap freely
	classLink                 // latency, loss: one at a time in the whole cluster
	classProcess              // kill, power-off, pause, power loss
	classClock
	classDisk
	numClasses
)

func (k Kind) class() class { return k.spec().class }
