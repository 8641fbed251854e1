package simtest_test

import (
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// TestHelperTwoFailEachWay fails seeds 0 and 1, each once both have
// started, so that with two workers both fail before the sweep stops; each
// fails the way SIMTEST_FAIL_BY says: t.Error, t.Fatal in the root, t.Fatal
// in a spawned task (runtime.Goexit inside a task), or a false
// simrt.Always.
func TestHelperTwoFailEachWay(t *testing.T) {
	if !helper(t) {
		return
	}
	how := os.Getenv("SIMTEST_FAIL_BY")
	var started sync.WaitGroup
	started.Add(2)
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		if ctx.Seed() >= 2 {
			return
		}
		started.Done()
		started.Wait() // outside the simulation's logic: the harness's barrier
		switch how {
		case "error":
			t.Error("planted failure")
		case "fatal":
			t.Fatal("planted failure")
		case "fatal_in_task":
			simrt.Spawn(ctx.Child("doomed"), func(simrt.Context) int { t.Fatal("planted failure"); return 0 }).Await(ctx)
		case "always":
			simrt.Always(ctx, false, "planted: never true")
		default:
			t.Errorf("SIMTEST_FAIL_BY=%q", how)
		}
	})
}

var reSeedFail = regexp.MustCompile(`(?m)^\s*--- FAIL: TestHelperTwoFailEachWay/seed=\d+ `)

// TestFailedSeedCountAgreesWithFailLines: whatever way the seeds failed,
// the sweep's summary counts (or says, beside the counted ones) as many
// failed seeds as there are "--- FAIL" lines for seeds. A seed that ended
// by t.Fatal (runtime.Goexit, in the root or in a task) or by a false
// Always went uncounted.
func TestFailedSeedCountAgreesWithFailLines(t *testing.T) {
	for _, how := range []string{"error", "fatal", "fatal_in_task", "always"} {
		t.Run(how, func(t *testing.T) {
			t.Setenv("SIMTEST_FAIL_BY", how)
			out := runHelper(t, "TestHelperTwoFailEachWay", "-simrt.seeds=0..9", "-simrt.parallel=2", "-test.v")
			if n := len(reSeedFail.FindAllString(out, -1)); n != 2 {
				t.Fatalf("%d --- FAIL lines for seeds, want 2:\n%s", n, out)
			}
			want := "simrt: 1 of 1 seeds run failed (of 10 selected): 0; 1 more seed, running beside them, failed too"
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		})
	}
}
