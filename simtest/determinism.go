package simtest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/audit"
)

// CheckDeterminism runs root twice with the seed of Run (cfg.Seed, or
// -simrt.seed) and the whole event log on, and compares the two runs event
// by event. If they differ it marks t failed with the first divergent event
// as seen by both runs (its index, simulated time, task, kind and fields)
// and the likely causes. A failure of the simulation itself is reported as
// by Run. Call it from the test's goroutine.
//
// The flag -simrt.checkdeterminism applies the same check to every Run and
// every seed of Explore.
func CheckDeterminism(t *testing.T, cfg deterministic.Config, root Func) {
	t.Helper()
	mustStart(t, "CheckDeterminism", cfg, root == nil)
	st := mustSettings(t)
	if st.hasSeed {
		cfg.Seed = st.seed
	}
	if d := checkDeterminism(t, cfg, root, st.crypto); d != nil {
		t.Errorf("simrt: seed %d is not deterministic\n%s\nreplay: %s", cfg.Seed, d, replayCommand(t.Name(), cfg.Seed))
	}
}

// checkDeterminism runs root twice and returns the first divergence, or nil
// when the runs agree (or when the first run failed, which is reported).
func checkDeterminism(t *testing.T, cfg deterministic.Config, root Func, crypto bool) *Divergence {
	t.Helper()
	cfg.Hooks.EventLog = -1
	cfg.Hooks.Coverage = nil // repeats of the seed are no more coverage
	var runs [2][]audit.Event
	for i := range runs {
		if crypto {
			cryptotest.SetGlobalRandom(t, cfg.Seed)
		}
		var aud *deterministic.Auditor
		if f := simulate(t, t.Name(), "", false, cfg, root, func(a *deterministic.Auditor) { aud = a }); f != nil {
			if i == 0 {
				f.events = lastEvents(f.events, reportEvents)
				f.mark(t, t.Name())
				t.Errorf("%s", f.report(t.Name()))
				return nil
			}
		}
		if aud != nil {
			runs[i] = aud.Log().Events()
		}
	}
	return Compare(runs[0], runs[1])
}

// Divergence is the first difference between two event streams of one seed.
type Divergence struct {
	// Index is the position of the first event that differs.
	Index uint64
	// First and Second are that event in each run; nil when that run had
	// no more events.
	First, Second *audit.Event
	// Causes lists the likely causes, the likeliest first.
	Causes []string
}

// Compare returns where two event streams of the same seed first differ,
// or nil when they are identical. Events are compared by kind, task,
// simulated time and fields.
func Compare(first, second []audit.Event) *Divergence {
	n := min(len(first), len(second))
	for i := range n {
		if !sameEvent(first[i], second[i]) {
			d := &Divergence{Index: first[i].Index, First: &first[i], Second: &second[i]}
			d.Causes = causes(d.First, d.Second)
			return d
		}
	}
	if len(first) == len(second) {
		return nil
	}
	d := &Divergence{}
	if len(first) > n {
		d.First, d.Index = &first[n], first[n].Index
	} else {
		d.Second, d.Index = &second[n], second[n].Index
	}
	d.Causes = causes(d.First, d.Second)
	return d
}

func sameEvent(a, b audit.Event) bool {
	if a.Label != b.Label || a.Task != b.Task || !a.Time.Equal(b.Time) || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if !bytes.Equal(a.Fields[i], b.Fields[i]) {
			return false
		}
	}
	return true
}

// String renders the divergence: both events, then the likely causes.
func (d *Divergence) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "first divergent event: #%d\n", d.Index)
	for i, e := range []*audit.Event{d.First, d.Second} {
		fmt.Fprintf(&b, "  run %d: ", i+1)
		if e == nil {
			b.WriteString("(no event: this run had ended)\n")
			continue
		}
		task := e.Task
		if task == "" {
			task = "<root>"
		}
		fmt.Fprintf(&b, "time %s, task %q, kind %s, fields %s\n",
			e.Time.UTC().Format(time.RFC3339Nano), task, e.Label, fieldsString(e.Fields))
	}
	b.WriteString("likely causes:\n")
	for _, c := range d.Causes {
		fmt.Fprintf(&b, "  - %s\n", c)
	}
	return strings.TrimRight(b.String(), "\n")
}

func fieldsString(fields [][]byte) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		if printable(f) {
			parts[i] = fmt.Sprintf("%q", f)
		} else {
			parts[i] = fmt.Sprintf("%x", f)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func printable(f []byte) bool {
	if len(f) == 0 || len(f) > 128 {
		return false
	}
	for _, c := range f {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// Causes of nondeterminism, named in reports.
const (
	causeMap = "iteration over a Go map feeding a decision (whom to pick, in which order to " +
		"spawn, send or write): Go randomises map order on every range; sort the keys first"
	causeGoroutine = "a native goroutine, channel or sync primitive waking a task behind the " +
		"executor's back (a go statement, time.AfterFunc): use simrt.Spawn and simrt primitives"
	causeClock = "the wall clock (time.Now, time.Since, time.Sleep, time.After): use ctx.Now and ctx.Sleep"
	causeRand  = "math/rand or math/rand/v2 top-level functions, or crypto/rand: draw from ctx.Rand() " +
		"or ctx (an io.Reader); for keys and TLS use simtest.SeedCrypto"
	causeShared = "state shared between simulations (package-level variables, caches) that a " +
		"previous or parallel run changed"
)

// causes ranks the usual causes by what the divergent events show.
func causes(a, b *audit.Event) []string {
	e := a
	if e == nil {
		e = b
	}
	var first []string
	switch {
	case a == nil || b == nil:
		first = []string{"one run did more than the other: " + causeMap, causeGoroutine}
	case a.Label != b.Label:
		first = []string{"the runs did different things at the same point: " + causeMap, causeGoroutine, causeClock}
	case e.Label == audit.ProcessTask || a.Task != b.Task:
		first = []string{"the executor resumed a different task: " + causeGoroutine, causeMap}
	case !a.Time.Equal(b.Time):
		first = []string{"the same event happened at another simulated time: " + causeClock, causeGoroutine}
	case e.Label == audit.Spawn:
		first = []string{"a different task was spawned: " + causeMap}
	case e.Label == audit.Timer:
		first = []string{"a timer was set for another deadline: " + causeClock, causeMap, causeRand}
	case e.Label == audit.Rand:
		first = []string{"a different kind of random draw: " + causeMap, causeRand}
	default:
		first = []string{"the event's payload differs: " + causeMap, causeClock, causeRand}
	}
	out := first
	for _, c := range []string{causeMap, causeGoroutine, causeClock, causeRand, causeShared} {
		dup := false
		for _, f := range first {
			if strings.HasSuffix(f, c) {
				dup = true
			}
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}
