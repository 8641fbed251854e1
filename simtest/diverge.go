package simtest

import (
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic/decision"
)

// watchedStream replays a stream file through inner (the file's stream,
// or with -simrt.replaydefaults a decision.DefaultAfter of it) and
// warns once, on t, at the first decision whose kind differs from the
// run's: the file was recorded by another test or program, or the code
// changed, and from there on the seed (or the default) decides where the
// kinds differ. Without the warning such a replay would pass for the
// recorded run.
type watchedStream struct {
	t        *testing.T
	path     string
	s        *decision.Stream
	inner    decision.Decider
	defaults bool // inner answers the default where s has no decision
	warned   bool
}

// watchStream returns the Decider that replays s, read from path, for t:
// with defaults, as decision.DefaultAfter does.
func watchStream(t *testing.T, path string, s *decision.Stream, defaults bool) decision.Decider {
	w := &watchedStream{t: t, path: path, s: s, inner: s, defaults: defaults}
	if defaults {
		w.inner = decision.DefaultAfter{Stream: s}
	}
	return w
}

// Decide implements decision.Decider.
func (w *watchedStream) Decide(pos uint64, kind decision.Kind) (uint64, bool) {
	if !w.warned && pos < uint64(len(w.s.Decisions)) && w.s.Decisions[pos].Kind != kind {
		w.warned = true
		flags, decides := "-simrt.replay="+w.path, "the seed decides"
		if w.defaults {
			flags, decides = flags+" -simrt.replaydefaults", "the kind's default decides"
		}
		w.t.Logf("simrt: warning: %s diverged at decision #%d (file: %s, run: %s): the stream was recorded by another test or program, or the code changed; %s where the kinds differ",
			flags, pos, w.s.Decisions[pos].Kind, kind, decides)
	}
	return w.inner.Decide(pos, kind)
}

// warnOtherRecorder warns on t, before the run, when the stream read from
// path was recorded by another test than name (of this test binary's
// package): its decisions are that test's, so the run cannot be the
// recorded one, and the replay would otherwise pass for it, or warn only
// at the first decision that differs. A stream that names no test (format
// 1, or made by hand) is not checked; nor is the package when either side
// does not know it.
func warnOtherRecorder(t *testing.T, path, name string, s *decision.Stream) {
	pkg := testPackage()
	if s.Test == "" || s.Test == name && (s.Package == "" || pkg == "" || s.Package == pkg) {
		return
	}
	t.Logf("simrt: warning: -simrt.replay=%s was recorded by %s, not by %s, which replays it: the decisions are the other test's, so this run is not the recorded one; replay the file in %s",
		path, testDesc(s.Test, s.Package), testDesc(name, pkg), s.Test)
}

// testDesc names a test and, when known, its package.
func testDesc(name, pkg string) string {
	d := "test " + strconv.Quote(name)
	if pkg != "" {
		d += " of package " + pkg
	}
	return d
}

// testPackage returns the import path of the package under test, from
// the test binary's build information ("example.com/m/pkg.test"), or "".
func testPackage() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	pkg, ok := strings.CutSuffix(bi.Path, ".test")
	if !ok {
		return ""
	}
	return pkg
}

// recorded returns s named as recorded by test name of this binary's
// package, for a stream file: a copy, so that a Config.Hooks.Record of the
// caller's is left as it was.
func recorded(s *decision.Stream, name string) *decision.Stream {
	c := *s
	c.Test, c.Package = name, testPackage()
	return &c
}
