package audit

import (
	"fmt"
	"strings"
	"time"
)

// Event is one audited event as an event log keeps it (see
// deterministic.EventLog): where and when it happened, its label and fields,
// and the auditor's state after it.
type Event struct {
	// Index counts every audited event since the first runtime of the run
	// began (a recovered runtime continues the count).
	Index uint64
	// Time is the simulated time of the event.
	Time time.Time
	// Task is the name of the running task ("" for the root, "<runtime>"
	// outside any task).
	Task string
	// Label is the event's kind (ProcessTask, Rand, ...).
	Label Label
	// Fields are the event's fields, as audited.
	Fields [][]byte
	// State is the auditor state after the event.
	State string
}

// String renders the event on one line.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d t=%s task=%q %s", e.Index, e.Time.UTC().Format(time.RFC3339Nano), e.Task, e.Label)
	for _, f := range e.Fields {
		if isPrintable(f) {
			fmt.Fprintf(&b, " %q", f)
		} else {
			fmt.Fprintf(&b, " %x", f)
		}
	}
	fmt.Fprintf(&b, " -> %s", e.State)
	return b.String()
}

func isPrintable(f []byte) bool {
	if len(f) == 0 || len(f) > 64 {
		return false
	}
	for _, c := range f {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}
