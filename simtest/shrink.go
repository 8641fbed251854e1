package simtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/internal/shrink"
)

// Defaults of the shrinking and inevitability settings.
const (
	defaultShrinkRuns     = 400
	defaultContinuations  = 20
	defaultInevitableRate = 0.95
)

// streams is what runSeed does with one seed's decision stream: replay a
// file (-simrt.replay), record the run (-simrt.record, and for
// -simrt.shrink and -simrt.inevitable, which start from it), and mark a
// decision for a prober.
type streams struct {
	failedBefore bool
	record       *decision.Stream
	mark         *marker
	markFile     string
}

// setupStreams sets cfg's Replay and Record from st, for the test name
// (the one a replay command runs). aud is where runSeed keeps the run's
// auditor.
func setupStreams(t *testing.T, name string, cfg *deterministic.Config, st settings, aud **deterministic.Auditor) *streams {
	t.Helper()
	ss := &streams{failedBefore: t.Failed()}
	if st.replay == "" && st.replayDefaults {
		cfg.Replay = decision.DefaultAfter{} // the plainest run: every decision its default
	}
	if st.replay != "" {
		s, err := decision.ReadStreamFile(st.replay)
		if err != nil {
			t.Fatalf("simrt: -simrt.replay=%s: %v", st.replay, err)
		}
		warnOtherRecorder(t, st.replay, name, s)
		cfg.Replay = watchStream(t, st.replay, s, st.replayDefaults) // warns where the run diverges from the file
	}
	if st.record != "" || st.shrink || st.inevitable {
		if cfg.Hooks.Record == nil {
			cfg.Hooks.Record = &decision.Stream{}
		}
		ss.record = cfg.Hooks.Record
	}
	if pos, file, ok := parseMark(); ok {
		ss.mark = &marker{next: cfg.Replay, pos: pos, aud: aud}
		ss.markFile = file
		cfg.Replay = ss.mark
		cfg.Hooks.EventLog = -1 // the events around the mark, not just the last few
	}
	return ss
}

// after writes what was asked for once the seed has run, and shrinks or
// searches a seed that failed.
func (ss *streams) after(t *testing.T, name string, cfg deterministic.Config, st settings, aud *deterministic.Auditor) {
	t.Helper()
	if ss.mark != nil {
		if err := writeMark(ss.markFile, ss.mark, aud, startTime(cfg)); err != nil {
			t.Errorf("simrt: %v", err)
		}
	}
	if st.record != "" && ss.record != nil {
		if err := recorded(ss.record, name).WriteFile(st.record); err != nil {
			t.Errorf("simrt: -simrt.record: %v", err)
		}
	}
	if !t.Failed() || ss.failedBefore || ss.record == nil {
		return
	}
	if st.shrink {
		shrinkFailure(t, name, cfg.Seed, st, ss.record)
	}
	if st.inevitable {
		findInevitable(t, name, cfg.Seed, st, ss.record)
	}
}

// shrinkFailure shrinks the decision stream of a failed seed: it reruns
// candidate streams in fresh processes, keeps those that fail the same
// way, saves the smallest and logs the command that replays it.
func shrinkFailure(t *testing.T, name string, seed uint64, st settings, orig *decision.Stream) {
	t.Helper()
	p := newProber(t, name, st.shrinkRuns, st)
	class, out, err := p.run(probe{stream: orig, seed: seed, mark: -1})
	switch {
	case err != nil:
		t.Errorf("simrt: shrink: %v", err)
		return
	case class == "":
		t.Errorf("simrt: shrink: seed %d, replaying its recorded stream in a fresh process, passed: "+
			"the failure depends on something outside the simulation (state left by another test, the environment)\n%s", seed, out)
		return
	}
	fails := func(c *decision.Stream) bool {
		if p.spent() {
			return false
		}
		got, _, err := p.run(probe{stream: c, seed: seed, defaults: true, mark: -1})
		return err == nil && got == class
	}
	cand := ShrinkStream(orig, 0, fails)

	path := st.shrinkOut
	if path == "" {
		path = filepath.Join("testdata", "simrt", fileName(name)+"-seed"+strconv.FormatUint(seed, 10)+".stream")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Errorf("simrt: shrink: %v", err)
		return
	}
	// The saved file is the record of the shrunk run, every decision it
	// made, so that a plain -simrt.replay (the seed past its end) is that
	// run exactly; the run is checked once more from the file.
	final, _, err := p.run(probe{stream: cand, seed: seed, defaults: true, record: path, mark: -1})
	if err == nil && final == class {
		var saved *decision.Stream
		if saved, err = decision.ReadStreamFile(path); err == nil {
			final, _, err = p.run(probe{stream: saved, seed: seed, mark: -1})
			cand = saved
		}
	}
	switch {
	case err != nil:
		t.Errorf("simrt: shrink: %v", err)
		return
	case final != class:
		t.Errorf("simrt: shrink: the shrunk stream of seed %d did not fail again the same way from its file (%q, want %q): the run is not deterministic", seed, final, class)
		return
	}
	t.Logf("simrt: shrank seed %d (%s) from %d decisions (%d non-default) to %d (%d non-default) in %d runs; saved to %s\nreplay: %s\n%s",
		seed, class, len(orig.Decisions), orig.NonDefault(), len(cand.Decisions), cand.NonDefault(), p.runs, path,
		streamReplayCommand(name, seed, path), nonDefaultList(cand))
}

// shownDecisions is how many non-default decisions a shrink result lists.
const shownDecisions = 20

// nonDefaultList renders the decisions of s that are not defaults.
func nonDefaultList(s *decision.Stream) string {
	var b strings.Builder
	n := s.NonDefault()
	if n == 0 {
		return "every decision is the default: the failure needs no random choice"
	}
	fmt.Fprintf(&b, "the decisions that are not the default:")
	shown := 0
	for i, d := range s.Decisions {
		if d.IsDefault() {
			continue
		}
		if shown == shownDecisions {
			fmt.Fprintf(&b, "\n  ... (%d more)", n-shown)
			break
		}
		fmt.Fprintf(&b, "\n  #%d %s", i, decisionString(d))
		shown++
	}
	return b.String()
}

// ShrinkStream returns a smaller stream for which fails still holds,
// where a stream's missing decisions are defaults (deterministic.
// DefaultAfter). It first cuts the stream to the shortest prefix that
// still fails (binary search: it assumes that a prefix failing implies
// the longer ones do, and keeps only lengths it saw fail), then sets
// decisions to their defaults by delta debugging over the positions that
// are not, and last drops the defaults at the end. It calls fails at most
// budget times (no limit when budget <= 0); once the budget is spent it
// returns the smallest failing stream found so far.
func ShrinkStream(orig *decision.Stream, budget int, fails func(*decision.Stream) bool) *decision.Stream {
	calls := 0
	try := func(s *decision.Stream) bool {
		calls++
		return fails(s)
	}
	spent := func() bool { return budget > 0 && calls >= budget }
	ds := orig.Decisions
	build := func(keep []int) *decision.Stream {
		n := 0
		if len(keep) > 0 {
			n = keep[len(keep)-1] + 1
		}
		s := &decision.Stream{Decisions: make([]decision.Decision, n)}
		for i := range s.Decisions {
			s.Decisions[i] = decision.Decision{Kind: ds[i].Kind, Value: ds[i].Kind.Default()}
		}
		for _, i := range keep {
			s.Decisions[i] = ds[i]
		}
		return s
	}
	var nonDefault []int
	for i, d := range ds {
		if !d.IsDefault() {
			nonDefault = append(nonDefault, i)
		}
	}
	upTo := func(m int) []int {
		j, _ := slices.BinarySearch(nonDefault, m)
		return nonDefault[:j]
	}
	lo, hi := 0, len(ds)
	for lo < hi && !spent() {
		mid := lo + (hi-lo)/2
		if try(build(upTo(mid))) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if spent() {
		return build(upTo(hi))
	}
	left := 0
	if budget > 0 {
		left = budget - calls
	}
	keep, _ := shrink.MinimizeWithin(upTo(hi), func(k []int) bool { return try(build(k)) }, left)
	return build(keep)
}

// streamReplayCommand returns the go test command that replays test with
// seed and the stream file at path (relative to the package directory, as
// go test runs the binary there).
func streamReplayCommand(test string, seed uint64, path string) string {
	return fmt.Sprintf("%s -simrt.replay=%s", replayCommand(test, seed), quoteArg(filepath.ToSlash(path)))
}

var reSafeArg = regexp.MustCompile(`^[A-Za-z0-9_./=,:@+-]+$`)

// quoteArg quotes s for a POSIX shell if it needs it.
func quoteArg(s string) string {
	if reSafeArg.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fileName turns a test name into a file name.
func fileName(test string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, test)
}
