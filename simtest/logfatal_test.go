package simtest_test

import (
	"log"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// fatalOnSomeSeeds calls log.Fatalf from a spawned task on the seeds whose
// first draw is 0: system code that gives up the way a main does.
func fatalOnSomeSeeds(t *testing.T, ctx *deterministic.Context) {
	h := simrt.Spawn(ctx.Child("replica"), func(ctx simrt.Context) int {
		ctx.Sleep(time.Millisecond)
		if ctx.Rand().IntN(4) == 0 {
			log.Fatalf("replica: corrupt log entry %d", 7)
		}
		return 0
	})
	h.Await(ctx)
}

func TestHelperLogFatal(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Explore(t, deterministic.Config{}, fatalOnSomeSeeds)
}

func TestHelperLogFatalCaught(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Explore(t, deterministic.Config{CatchPanics: true}, fatalOnSomeSeeds)
}

var reSweepFailed = regexp.MustCompile(`simrt: (\d+) of 20 seeds run failed`)

// A log.Fatal in a simulated task does not end the test process, which
// would end the sweep without naming the seed: it fails its seed, like a
// panic, with the seed's report and replay command, and the sweep goes on
// to the other seeds. With CatchPanics too, where a panic is only the
// task's error.
func TestLogFatalInTaskFailsItsSeed(t *testing.T) {
	for _, name := range []string{"TestHelperLogFatal", "TestHelperLogFatalCaught"} {
		out := runHelper(t, name, "-simrt.seeds=0..19", "-simrt.keepgoing")
		m := reSweepFailed.FindStringSubmatch(out)
		if m == nil || m[1] == "0" || m[1] == "20" {
			t.Errorf("%s: the sweep's summary does not count some of 20 seeds failing:\n%s", name, out)
			continue
		}
		for _, want := range []string{
			"in task \"replica\"",
			"log.Fatal",
			"replica: corrupt log entry 7",
			"replay: go test -run '^" + name + "$'",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the output lacks %q:\n%s", name, want, out)
			}
		}
		if f := reFirst.FindStringSubmatch(out); f == nil || !strings.Contains(f[2], "-simrt.seed="+f[1]) {
			t.Errorf("%s: no replay command for the first failing seed:\n%s", name, out)
		}
	}
}
