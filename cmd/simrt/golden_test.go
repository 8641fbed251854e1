package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
)

// goldenMoved is the message of every golden mismatch.
const goldenMoved = "audit state moved: if this change is deliberate, update the golden value in the same commit and say why in the commit message"

// demoSummary matches the demo's last line.
var demoSummary = regexp.MustCompile(`(?m)^seed (\d+): simulated (\S+), audit state ([0-9a-f]{8})$`)

// TestGoldenDemo pins the audit state and the simulated length of the demo
// at two seeds, through the command line as a user runs it. A change to the
// simulator, the primitives or the demo that moves them must be deliberate,
// with the new values in the same commit and the reason in its message.
// Each seed runs twice: the same seed must print the same bytes.
//
// The demo builds its own deterministic.Config, so its event count is not
// reachable from here; the audit state covers every event and its order.
func TestGoldenDemo(t *testing.T) {
	for _, tc := range []struct {
		name      string
		seed      uint64
		wantState string
		wantSim   string // simulated time the demo reports
	}{
		{"demo", 7, "f7aea518", "282ms"},
		{"demo", 8, "27e5a8e6", "304ms"},
	} {
		t.Run(tc.name+"/seed="+strconv.FormatUint(tc.seed, 10), func(t *testing.T) {
			run := func() string {
				var out bytes.Buffer
				if code := dispatch([]string{"demo", "-seed", strconv.FormatUint(tc.seed, 10)}, &out, &out); code != 0 {
					t.Fatalf("demo -seed %d: exit %d:\n%s", tc.seed, code, out.String())
				}
				return out.String()
			}
			first, second := run(), run()
			if first != second {
				t.Fatalf("demo -seed %d: same seed, different output:\n%s\n---\n%s", tc.seed, first, second)
			}
			m := demoSummary.FindStringSubmatch(first)
			if m == nil {
				t.Fatalf("demo -seed %d: no summary line %q in the output:\n%s", tc.seed, demoSummary, first)
			}
			if m[1] != strconv.FormatUint(tc.seed, 10) {
				t.Fatalf("demo -seed %d reports seed %s", tc.seed, m[1])
			}
			if sim, state := m[2], m[3]; state != tc.wantState || sim != tc.wantSim {
				t.Fatalf("demo -seed %d: audit state %s after %s simulated, golden %s after %s\n%s",
					tc.seed, state, sim, tc.wantState, tc.wantSim, goldenMoved)
			}
		})
	}
}
