package simtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/nemesis"
)

// A prober runs one seed of the test again in a fresh process of the test
// binary, with a decision stream to replay, and says how it failed. The
// shrinker and the inevitability search try many streams; a run that fails
// marks its *testing.T failed for good, so each try gets its own process,
// where a failure is only output. It also isolates the tries from each
// other's package state.
type prober struct {
	pattern string // -test.run pattern of the test
	dir     string // where candidate streams are written
	runs    int    // processes started so far
	limit   int    // at most this many; 0: no limit
	files   int
	crypto  bool // -simrt.cryptorand
	timeout time.Duration
}

// A candidate stream can make a run that never ends (a livelock the
// original schedule avoided, with no Config.Timeout to stop it), so each
// try has a wall-clock bound: probeSlack times the first try (the
// original stream), at least probeMinTimeout, at most probeTimeout.
const (
	probeTimeout    = 2 * time.Minute
	probeMinTimeout = 10 * time.Second
	probeSlack      = 20
)

func newProber(t *testing.T, name string, limit int, st settings) *prober {
	return &prober{pattern: runPattern(name), dir: t.TempDir(), limit: limit, crypto: st.crypto, timeout: probeTimeout}
}

// runPattern returns the anchored -test.run pattern of the test name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// spent reports whether the prober has used up its runs.
func (p *prober) spent() bool { return p.limit > 0 && p.runs >= p.limit }

// probe is one try.
type probe struct {
	stream   *decision.Stream  // nil: none, the seed's own decisions
	schedule *nemesis.Schedule // the nemesis's schedule (-simrt.schedule), or nil: drawn from the seed
	seed     uint64
	defaults bool   // -simrt.replaydefaults
	record   string // -simrt.record file, or ""
	mark     int    // decision whose event index to write to markFile, or -1
	markFile string
}

// run runs the try and returns its failure class ("" when it passed) and
// the process's output.
func (p *prober) run(pr probe) (string, string, error) {
	p.runs++
	p.files++
	path, sched := "", ""
	if pr.stream != nil {
		path = filepath.Join(p.dir, fmt.Sprintf("c%d.stream", p.files))
		if err := pr.stream.WriteFile(path); err != nil {
			return "", "", err
		}
		defer os.Remove(path)
	}
	if pr.schedule != nil {
		sched = filepath.Join(p.dir, fmt.Sprintf("c%d.schedule", p.files))
		if err := pr.schedule.WriteFile(sched); err != nil {
			return "", "", err
		}
		defer os.Remove(sched)
	}
	args := []string{"-test.run=" + p.pattern, "-test.count=1", "-test.timeout=" + p.timeout.String(),
		"-simrt.seed=" + strconv.FormatUint(pr.seed, 10), "-simrt.replay=" + path,
		"-simrt.schedule=" + sched, "-simrt.shrinkschedule=false", "-simrt.shrink=false", "-simrt.inevitable=false", "-simrt.checkdeterminism=false",
		"-simrt.trace=", "-simrt.coverfile=", "-simrt.record=" + pr.record,
		"-simrt.replaydefaults=" + strconv.FormatBool(pr.defaults), "-simrt.cryptorand=" + strconv.FormatBool(p.crypto)}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	args = append(args, packageFlags()...)
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = os.Environ()
	if pr.mark >= 0 {
		cmd.Env = append(cmd.Env, markEnv+"="+strconv.Itoa(pr.mark)+","+pr.markFile)
	}
	began := time.Now() // the harness's clock, outside any simulation
	out, err := cmd.CombinedOutput()
	if p.runs == 1 {
		p.timeout = min(probeTimeout, max(probeMinTimeout, probeSlack*time.Since(began)))
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return "", string(out), fmt.Errorf("simrt: running %s: %v", os.Args[0], err)
	}
	switch {
	case err == nil:
		return "", string(out), nil
	case ctx.Err() != nil:
		return "the test timed out", string(out), nil
	}
	return failureClass(string(out)), string(out), nil
}

var (
	reReportHead = regexp.MustCompile(`simrt: seed \d+ failed(?: at .* in task ("(?:[^"\\]|\\.)*"|<root>))?`)
	reDigits     = regexp.MustCompile(`[0-9]+`)
)

// failureClass names how a failed test run failed, from its output, so
// that a shrunk stream is kept only if it fails the same way: the first
// line of simtest's report (a panic's value, "runtime stalled", ...), and
// for a t.Error or t.Fatal inside the simulation the task that first
// marked the test failed. Numbers are blanked out: a shrunk run that
// panics with "lost key 3" where the original lost key 17 is the same bug.
func failureClass(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		m := reReportHead.FindStringSubmatch(l)
		if m == nil || i+1 >= len(lines) {
			continue
		}
		what := strings.TrimSpace(lines[i+1])
		if strings.HasPrefix(what, "the test failed") && m[1] != "" {
			what += " in task " + m[1]
		}
		return reDigits.ReplaceAllString(what, "#")
	}
	switch {
	case strings.Contains(out, "panic: test timed out"):
		return "the test timed out"
	case strings.Contains(out, "is not deterministic"):
		return "not deterministic"
	}
	return "the test failed outside the simulation"
}

// markEnv asks a probe's process to note, for one decision of its run, the
// auditor's event count when the run made it (see marker): "pos,file".
const markEnv = "SIMRT_INTERNAL_MARK"

// marker is the Decider of a probe's process under markEnv: it passes
// every decision on to next and remembers how many events the run had
// audited when it asked for decision pos.
type marker struct {
	next  decision.Decider
	pos   uint64
	aud   **deterministic.Auditor
	found bool
	total uint64
}

// Decide implements decision.Decider.
func (m *marker) Decide(pos uint64, kind decision.Kind) (uint64, bool) {
	if pos == m.pos && !m.found {
		m.found = true
		if a := *m.aud; a != nil {
			m.total = a.Log().Total()
		}
	}
	if m.next == nil {
		return 0, false
	}
	return m.next.Decide(pos, kind)
}

// parseMark reads markEnv.
func parseMark() (uint64, string, bool) {
	v, ok := os.LookupEnv(markEnv)
	if !ok {
		return 0, "", false
	}
	p, file, ok := strings.Cut(v, ",")
	n, err := strconv.ParseUint(p, 10, 64)
	return n, file, ok && err == nil
}

// markWindow is how many events either side of a marked decision a probe
// writes.
const markWindow = 12

// writeMark writes the events around the marked decision, one formatted
// event a line, the first line saying where the decision fell.
func writeMark(file string, m *marker, aud *deterministic.Auditor, start time.Time) error {
	var b strings.Builder
	if !m.found || aud == nil {
		b.WriteString("the run never made that decision\n")
		return os.WriteFile(file, []byte(b.String()), 0o644)
	}
	if m.total == 0 {
		b.WriteString("decision made before the first event\n")
	} else {
		fmt.Fprintf(&b, "decision made after event #%d\n", m.total-1)
	}
	for _, e := range aud.Log().Events() {
		if e.Index+markWindow >= m.total && e.Index < m.total+markWindow {
			if e.Index == m.total {
				fmt.Fprintf(&b, "  ---- decision here ----\n")
			}
			fmt.Fprintf(&b, "%s\n", formatEvent(e, start, "", false))
		}
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}
