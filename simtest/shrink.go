package simtest

import (
	"cmp"
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
	"github.com/simrt/simrt/nemesis"
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
	sched := scheduleRan(t)
	if st.shrink {
		shrinkFailure(t, name, cfg.Seed, st, ss.record, sched)
	}
	if st.inevitable {
		findInevitable(t, name, cfg.Seed, st, ss.record, sched)
	}
}

// shrinkFailure shrinks a failed seed, whatever caused its failure: the
// fault schedule its Nemesis ran (sched, nil when it ran none), then its
// decision stream, then the schedule again (ShrinkFailure). Every
// candidate runs in a fresh process and is kept when it fails the same way
// (failureClass: the report's first line, numbers blanked). It saves the
// result, one schedule and one stream, and logs the command that replays
// it.
func shrinkFailure(t *testing.T, name string, seed uint64, st settings, orig *decision.Stream, sched *nemesis.Schedule) {
	t.Helper()
	p := newProber(t, name, 0, st)
	// The current run's own decisions: the seed's, or the stream it
	// replayed (-simrt.replay, with -simrt.replaydefaults as given).
	var own *decision.Stream
	if st.replay != "" {
		s, err := decision.ReadStreamFile(st.replay)
		if err != nil {
			t.Errorf("simrt: shrink: %v", err)
			return
		}
		own = s
	}
	class, out, err := p.run(probe{stream: orig, schedule: sched, seed: seed, mark: -1})
	switch {
	case err != nil:
		t.Errorf("simrt: shrink: %v", err)
		return
	case class == "":
		t.Errorf("simrt: shrink: seed %d, replaying its recorded stream in a fresh process, passed: "+
			"the failure depends on something outside the simulation (state left by another test, the environment)\n%s", seed, out)
		return
	}
	var probeErr error
	recordFile := filepath.Join(p.dir, "record.stream")
	run := func(r Reproduction, _ int, record bool) (string, *decision.Stream) {
		pr := probe{stream: own, defaults: st.replayDefaults, seed: seed, mark: -1}
		if r.Stream != nil {
			pr.stream, pr.defaults = r.Stream, true
		}
		if sched != nil {
			s := r.Schedule
			pr.schedule = &s
		}
		if record {
			pr.record = recordFile
		}
		got, _, err := p.run(pr)
		if err != nil {
			probeErr = cmp.Or(probeErr, err)
			return "", nil
		}
		if !record || got != class {
			return got, nil
		}
		rec, err := decision.ReadStreamFile(recordFile)
		if err != nil {
			probeErr = cmp.Or(probeErr, err)
			return "", nil
		}
		return got, rec
	}
	from := Reproduction{Stream: orig}
	if sched != nil {
		from.Schedule = *sched
	}
	res, err := ShrinkFailure(from, class, ShrinkOptions{MaxRuns: st.shrinkRuns}, run)
	if err = cmp.Or(probeErr, err); err != nil {
		t.Errorf("simrt: shrink: %v", err)
		return
	}
	if len(res.To.Schedule.Events) == len(res.From.Schedule.Events) && !isSmaller(res.To.Stream, res.From.Stream) {
		t.Logf("simrt: could not shrink seed %d (%s): no run with fewer faults, a shorter stream or fewer decisions not the default fails the same way (%s, %d runs)\n  %s",
			seed, class, res.Summary(), p.runs, strings.Join(res.Steps, "\n  "))
		return
	}

	path := st.shrinkOut
	if path == "" {
		path = filepath.Join("testdata", "simrt", fileName(name)+"-seed"+strconv.FormatUint(seed, 10)+".stream")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Errorf("simrt: shrink: %v", err)
		return
	}
	if err := recorded(res.To.Stream, name).WriteFile(path); err != nil {
		t.Errorf("simrt: shrink: %v", err)
		return
	}
	replay := streamReplayCommand(name, seed, path)
	schedPath := ""
	if sched != nil {
		schedPath = strings.TrimSuffix(path, ".stream") + ".schedule"
		if err := res.To.Schedule.WriteFile(schedPath); err != nil {
			t.Errorf("simrt: shrink: %v", err)
			return
		}
		replay += " -simrt.schedule=" + quoteArg(filepath.ToSlash(schedPath))
	}
	// The saved files replay the shrunk run exactly: checked once more.
	pr := probe{stream: res.To.Stream, seed: seed, mark: -1}
	if sched != nil {
		pr.schedule = &res.To.Schedule
	}
	final, _, err := p.run(pr)
	switch {
	case err != nil:
		t.Errorf("simrt: shrink: %v", err)
		return
	case final != class:
		t.Errorf("simrt: shrink: the shrunk run of seed %d did not fail again the same way from its files (%q, want %q): the run is not deterministic", seed, final, class)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "simrt: shrank seed %d (%s) %s in %d runs; saved to %s", seed, class, res.Summary(), p.runs, path)
	if schedPath != "" {
		fmt.Fprintf(&b, " and %s", schedPath)
	}
	fmt.Fprintf(&b, "\nreplay: %s\n", replay)
	for _, s := range res.Steps {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	if n, m := len(res.To.Stream.Decisions), len(res.From.Stream.Decisions); n > m {
		fmt.Fprintf(&b, "  (the run with fewer faults makes more decisions, %s against %s: it has more to do)\n", commas(n), commas(m))
	}
	if sched != nil {
		fmt.Fprintf(&b, "%s", nemesis.Summary(res.From.Schedule, res.To.Schedule))
	}
	b.WriteString(nonDefaultList(res.To.Stream))
	t.Logf("%s", b.String())
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
