package simtest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/simtest"
)

// lostAck loses an acknowledged record only when Buggify "early_ack"
// fires (the record is acknowledged before its sync) and then
// "crash_before_sync" fires before the sync: two events of about 1% per
// run each, in a row.
func lostAck(ctx *deterministic.Context) (lost bool) {
	for range 10 {
		if !simrt.Buggify(ctx, "early_ack") {
			ctx.Sleep(time.Millisecond)
			continue
		}
		for range 10 {
			ctx.Sleep(time.Millisecond)
			if simrt.Buggify(ctx, "crash_before_sync") {
				return true
			}
		}
	}
	return false
}

var lostAckConfig = deterministic.Config{Buggify: deterministic.BuggifyConfig{SiteProbability: 1, FireProbability: 0.001}}

func TestHelperBranch(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Branch(t, lostAckConfig, func(t *testing.T, ctx *deterministic.Context) {
		if lostAck(ctx) {
			t.Errorf("planted: an acknowledged record was lost")
		}
	}, simtest.BranchOptions{Runs: 2000, Out: os.Getenv("SIMTEST_BRANCH_OUT")})
}

// TestBranchReportsReproduction: Branch reports the failing run as simtest
// does, then the runs used, the goals reached (the crash from the early
// ack's prefix, at depth 1), the saved stream and the command that replays
// it; the saved stream, replayed, fails again.
func TestBranchReportsReproduction(t *testing.T) {
	out := filepath.Join(t.TempDir(), "lost-ack.stream")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBranch$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SIMTEST_HELPER=TestHelperBranch", "SIMTEST_BRANCH_OUT="+out)
	b, err := cmd.CombinedOutput()
	got := string(b)
	if err == nil {
		t.Fatalf("TestHelperBranch passed; want the planted failure:\n%s", got)
	}
	for _, re := range []string{
		`planted: an acknowledged record was lost`,
		`simrt: seed \d+ failed`,
		`simrt: branching explorer: \d+ runs, 2 goals reached`,
		`buggify "early_ack" at branch_test.go:\d+: run \d+, decision \d+, depth 0`,
		`buggify "crash_before_sync" at branch_test.go:\d+: run \d+, decision \d+, depth 1`,
		`simrt: branching explorer: run \d+ of \d+ failed \(1 failing\); its decision stream \(\d+ decisions\) is in ` + regexp.QuoteMeta(out),
		`replay: go test -run '\^TestHelperBranch\$' \./simtest -simrt\.seed=\d+ -simrt\.replay=` + regexp.QuoteMeta(out),
	} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("output lacks %s:\n%s", re, got)
		}
	}
	// The printed command reruns the failing run: same failure, same audit
	// state; the seed alone, without the stream, does not fail.
	m := regexp.MustCompile(`replay: go test .* -simrt\.seed=(\d+) -simrt\.replay=(\S+)`).FindStringSubmatch(got)
	st := regexp.MustCompile(`audit state: ([0-9a-f]+)`).FindStringSubmatch(got)
	if m == nil || st == nil {
		t.Fatalf("no replay command or audit state in:\n%s", got)
	}
	replay := exec.Command(os.Args[0], "-test.run=^TestHelperBranch$", "-test.count=1", "-simrt.seed="+m[1], "-simrt.replay="+m[2])
	replay.Env = append(os.Environ(), "SIMTEST_HELPER=TestHelperBranch")
	rb, err := replay.CombinedOutput()
	if err == nil || !strings.Contains(string(rb), "planted: an acknowledged record was lost") || !strings.Contains(string(rb), "audit state: "+st[1]) {
		t.Errorf("the replay command did not rerun the failing run (audit state %s):\n%s", st[1], rb)
	}
	seedOnly := exec.Command(os.Args[0], "-test.run=^TestHelperBranch$", "-test.count=1", "-simrt.seed="+m[1])
	seedOnly.Env = append(os.Environ(), "SIMTEST_HELPER=TestHelperBranch")
	if b, err := seedOnly.CombinedOutput(); err != nil {
		t.Errorf("the failing run's seed alone fails too; the prefix should be needed:\n%s", b)
	}
	s, err := decision.ReadStreamFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cfg := lostAckConfig
	cfg.Replay = s
	lost := false
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) { lost = lostAck(ctx) })
	if !lost {
		t.Errorf("the saved stream (%d decisions) does not lose the record on replay", len(s.Decisions))
	}
	if strings.Count(got, "planted: an acknowledged record was lost") != 1 {
		t.Errorf("want one failing run (Branch stops at the first):\n%s", got)
	}
}

// BranchSearch finds lostAck's bug, which needs two Buggify sites of about
// 1% per run each to fire in a row, by continuing from the prefix of the
// run where the first one fired.
func ExampleBranchSearch() {
	rep := simtest.BranchSearch(lostAckConfig, simtest.BranchOptions{Runs: 2000}, func(cfg deterministic.Config) (lost bool) {
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) { lost = lostAck(ctx) })
		return lost
	})
	fmt.Println("found:", rep.FirstFailure > 0)
	for _, s := range rep.Sites {
		fmt.Printf("%s %s, depth %d\n", s.Hit.Kind, s.Hit.Name, s.Depth)
	}
	// Output:
	// found: true
	// buggify early_ack, depth 0
	// buggify crash_before_sync, depth 1
}
