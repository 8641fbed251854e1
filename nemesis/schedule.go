package nemesis

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Schedule is a fault schedule: its events in the order of their start
// times, and the heal time T at which every fault still active is undone
// and the liveness phase starts.
type Schedule struct {
	Events []Event
	Heal   time.Duration
}

// header is the first line of a schedule file.
const header = "# simrt nemesis schedule"

// String returns the schedule in the format of a schedule file: one line
// per event (see Event.String) and the heal last ("10s heal").
func (s Schedule) String() string {
	var b strings.Builder
	for _, e := range s.Events {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%v heal\n", s.Heal)
	return b.String()
}

// Kinds returns the kinds of fault the schedule uses, in Kind order.
func (s Schedule) Kinds() []Kind {
	seen := make([]bool, len(kinds))
	for _, e := range s.Events {
		seen[e.Kind] = true
	}
	var ks []Kind
	for _, k := range Kinds() {
		if seen[k] {
			ks = append(ks, k)
		}
	}
	return ks
}

// Validate reports the first event that cannot be applied as written, an
// event out of order, or one starting at or after the heal.
func (s Schedule) Validate() error {
	if s.Heal <= 0 {
		return fmt.Errorf("nemesis: heal time %v is not positive", s.Heal)
	}
	var last time.Duration
	for i, e := range s.Events {
		if err := e.check(); err != nil {
			return fmt.Errorf("nemesis: event %d (%s): %w", i+1, e, err)
		}
		if e.At < last {
			return fmt.Errorf("nemesis: event %d (%s) starts before the one before it", i+1, e)
		}
		if e.At >= s.Heal {
			return fmt.Errorf("nemesis: event %d (%s) starts at or after the heal (%v)", i+1, e, s.Heal)
		}
		last = e.At
	}
	return nil
}

// WriteFile writes the schedule to path, in the format that ReadSchedule
// reads back: a header comment, then String.
func (s Schedule) WriteFile(path string) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(header+"\n"+s.String()), 0o644)
}

// ReadSchedule reads a schedule file written by WriteFile (or by hand, in
// the same format; lines starting with '#' and blank lines are ignored).
// Its errors name the file and the line.
func ReadSchedule(path string) (Schedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Schedule{}, err
	}
	s, err := ParseSchedule(data)
	if err != nil {
		return Schedule{}, fmt.Errorf("nemesis: %s: %w", path, err)
	}
	return s, nil
}

// ParseSchedule parses a schedule in the format of Schedule.String. Its
// errors start with the line number ("line 3: ...").
func ParseSchedule(data []byte) (Schedule, error) {
	var s Schedule
	healed := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if healed {
			return Schedule{}, fmt.Errorf("line %d: %q after the heal line", n, line)
		}
		if f := strings.Fields(line); len(f) == 2 && f[1] == "heal" {
			d, err := parseDuration("heal time", f[0])
			if err != nil {
				return Schedule{}, fmt.Errorf("line %d: %w", n, err)
			}
			s.Heal, healed = d, true
			continue
		}
		e, err := ParseEvent(line)
		if err != nil {
			return Schedule{}, fmt.Errorf("line %d: %w", n, err)
		}
		if len(s.Events) > 0 && e.At < s.Events[len(s.Events)-1].At {
			return Schedule{}, fmt.Errorf("line %d: event at %v starts before the one before it", n, e.At)
		}
		s.Events = append(s.Events, e)
	}
	if err := sc.Err(); err != nil {
		return Schedule{}, err
	}
	if !healed && s.Events == nil {
		return Schedule{}, errors.New("the schedule is empty: it needs at least its heal line (\"10s heal\")")
	}
	if !healed {
		return Schedule{}, fmt.Errorf("line %d: the schedule ends without its heal line (\"10s heal\")", n)
	}
	if err := s.Validate(); err != nil {
		return Schedule{}, err
	}
	return s, nil
}
