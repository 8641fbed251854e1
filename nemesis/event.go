package nemesis

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Event is one fault of a schedule: it starts At (simulated time since the
// nemesis started) and is undone For later (or at the heal, whichever comes
// first).
type Event struct {
	At   time.Duration
	Kind Kind
	// Nodes are the targets, by node name: the node of a one-node fault,
	// the first side of a partition or bridge, the source of a cut or
	// clog, every node of a power loss.
	Nodes []string
	// Other is the second side of a partition or bridge and the
	// destination of a cut or clog; nil for the other kinds.
	Other []string
	For   time.Duration
	// Delay is the latency of a Latency fault, the slowness of a DiskSlow
	// fault, the offset of a ClockOffset fault and the step of a ClockJump
	// fault (either sign for the clocks).
	Delay time.Duration
	// Jitter is the jitter of a Latency fault.
	Jitter time.Duration
	// Rate is the loss probability of a Loss fault, in (0, 1], and the
	// drift of a ClockDrift fault (0.0002 is +200 ppm), in (-0.5, 0.5).
	Rate float64
}

// String returns the event in one line, the format of a schedule file:
//
//	1.25s partition {n1,n2} | {n3,n4,n5} for 800ms
//	2s cut {n1} -> {n2} for 1s
//	3s latency {n2} 120ms jitter 30ms for 2s
//	4s loss {n3} 0.1 for 1s
//	5s clock-drift {n1} +0.0002 for 10s
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(e.At.String())
	b.WriteByte(' ')
	b.WriteString(e.Kind.String())
	b.WriteByte(' ')
	b.WriteString(group(e.Nodes))
	switch e.Kind.shape() {
	case twoSides:
		b.WriteString(" | ")
		b.WriteString(group(e.Other))
	case oneWay:
		b.WriteString(" -> ")
		b.WriteString(group(e.Other))
	}
	if f := e.Kind.spec().params.format; f != nil {
		f(&b, e)
	}
	fmt.Fprintf(&b, " for %v", e.For)
	return b.String()
}

func group(names []string) string { return "{" + strings.Join(names, ",") + "}" }

// signedDuration writes d with its sign, "+1.5s" or "-1.5s".
func signedDuration(d time.Duration) string {
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

// ParseEvent parses one line in the format of Event.String.
func ParseEvent(line string) (Event, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return Event{}, fmt.Errorf("want \"<at> <kind> {nodes} ... for <duration>\", got %q", line)
	}
	p := &eventParser{rest: f[2:]}
	var err error
	if p.e.At, err = parseDuration("time", f[0]); err != nil {
		return p.e, err
	}
	if p.e.Kind, err = ParseKind(f[1]); err != nil {
		return p.e, err
	}
	for _, step := range []func() error{p.targets, p.params, p.duration, p.check} {
		if err = step(); err != nil {
			break
		}
	}
	return p.e, err
}

// eventParser reads the fields of an event line after its time and kind,
// in order, into e.
type eventParser struct {
	e    Event
	rest []string
}

// next takes the next field, or reports it missing as what.
func (p *eventParser) next(what string) (string, error) {
	if len(p.rest) == 0 {
		return "", fmt.Errorf("%s: missing %s", p.e.Kind, what)
	}
	s := p.rest[0]
	p.rest = p.rest[1:]
	return s, nil
}

// word takes the next field, which must be want.
func (p *eventParser) word(want string) error {
	s, err := p.next(fmt.Sprintf("%q", want))
	if err == nil && s != want {
		err = fmt.Errorf("%s: want %q, got %q", p.e.Kind, want, s)
	}
	return err
}

// dur takes the next field as a duration, named what in errors.
func (p *eventParser) dur(what string) (time.Duration, error) {
	s, err := p.next(what)
	if err != nil {
		return 0, err
	}
	return parseDuration(what, s)
}

// group takes the next field as a node group.
func (p *eventParser) group() ([]string, error) {
	s, err := p.next("{nodes}")
	if err != nil {
		return nil, err
	}
	return parseGroup(s)
}

// targets reads the node group, and the second one after its separator
// for the kinds that have one.
func (p *eventParser) targets() error {
	var err error
	if p.e.Nodes, err = p.group(); err != nil {
		return err
	}
	switch p.e.Kind.shape() {
	case twoSides:
		err = p.word("|")
	case oneWay:
		err = p.word("->")
	default:
		return nil
	}
	if err == nil {
		p.e.Other, err = p.group()
	}
	return err
}

// params reads the parameters of the kinds that have some.
func (p *eventParser) params() error {
	if f := p.e.Kind.spec().params.parse; f != nil {
		return f(p)
	}
	return nil
}

// check checks the event read (see Event.check).
func (p *eventParser) check() error { return p.e.check() }

// duration reads "for <duration>", which ends the line.
func (p *eventParser) duration() error {
	err := p.word("for")
	if err == nil {
		p.e.For, err = p.dur("duration")
	}
	if err == nil && len(p.rest) > 0 {
		err = fmt.Errorf("%s: unexpected %q after the duration", p.e.Kind, strings.Join(p.rest, " "))
	}
	return err
}

func parseDuration(what, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad %s %q", what, s)
	}
	return d, nil
}

func parseGroup(s string) ([]string, error) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("want a node group like {n1,n2}, got %q", s)
	}
	if s == "{}" {
		return nil, fmt.Errorf("empty node group %q", s)
	}
	names := strings.Split(s[1:len(s)-1], ",")
	for _, n := range names {
		if err := checkName(n); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func checkName(n string) error {
	if n == "" {
		return fmt.Errorf("empty node name")
	}
	for i, r := range n {
		if !(r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '_')) {
			return fmt.Errorf("bad node name %q (want [a-z][a-z0-9_]*, as deterministic.NodeConfig.Name)", n)
		}
	}
	return nil
}

// check reports an event that cannot be applied as written.
func (e Event) check() error {
	switch {
	case !e.Kind.valid():
		return fmt.Errorf("unknown fault kind %d", e.Kind)
	case e.At < 0:
		return fmt.Errorf("%s: negative time %v", e.Kind, e.At)
	case e.For <= 0:
		return fmt.Errorf("%s: duration %v is not positive", e.Kind, e.For)
	case len(e.Nodes) == 0:
		return fmt.Errorf("%s: no target node", e.Kind)
	}
	for _, n := range append(slices.Clip(e.Nodes), e.Other...) {
		if err := checkName(n); err != nil {
			return fmt.Errorf("%s: %w", e.Kind, err)
		}
	}
	switch sh := e.Kind.shape(); {
	case sh == oneNode && len(e.Nodes) != 1:
		return fmt.Errorf("%s: want one node, got %d", e.Kind, len(e.Nodes))
	case sh == oneWay && (len(e.Nodes) != 1 || len(e.Other) != 1):
		return fmt.Errorf("%s: want one node each way", e.Kind)
	case sh == twoSides && len(e.Other) == 0:
		return fmt.Errorf("%s: empty second side", e.Kind)
	}
	if err := e.checkSides(); err != nil {
		return err
	}
	if f := e.Kind.spec().params.check; f != nil {
		return f(e)
	}
	return nil
}

// checkSides reports a node named twice on one side, and sides that make
// the fault affect nothing: a partition, cut or clog with a node on both
// sides (a node is not cut from itself), a bridge with a side that has no
// node of its own (every link it would cut runs through the bridge).
func (e Event) checkSides() error {
	for _, side := range [][]string{e.Nodes, e.Other} {
		for i, n := range side {
			if slices.Contains(side[:i], n) {
				return fmt.Errorf("%s: node %s named twice in %s", e.Kind, n, group(side))
			}
		}
	}
	if e.Kind.spec().shared {
		if !hasOwn(e.Nodes, e.Other) || !hasOwn(e.Other, e.Nodes) {
			return fmt.Errorf("%s: each side of %s | %s needs a node the other side lacks", e.Kind, group(e.Nodes), group(e.Other))
		}
		return nil
	}
	for _, n := range e.Nodes {
		if slices.Contains(e.Other, n) {
			return fmt.Errorf("%s: node %s is on both sides", e.Kind, n)
		}
	}
	return nil
}

// hasOwn reports whether side has a node that other lacks.
func hasOwn(side, other []string) bool {
	for _, n := range side {
		if !slices.Contains(other, n) {
			return true
		}
	}
	return false
}
