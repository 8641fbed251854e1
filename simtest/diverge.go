package simtest

import (
	"testing"

	"github.com/simrt/simrt/deterministic"
)

// watchedStream replays a stream file as deterministic.Stream does and
// warns once, on t, at the first decision whose kind differs from the
// run's: the file was recorded by another test or program, or the code
// changed, and from there on the seed decides where the kinds differ.
// Without the warning such a replay would pass for the recorded run.
type watchedStream struct {
	t      *testing.T
	path   string
	s      *deterministic.Stream
	warned bool
}

// watchStream returns the Decider that replays s, read from path, for t.
func watchStream(t *testing.T, path string, s *deterministic.Stream) deterministic.Decider {
	return &watchedStream{t: t, path: path, s: s}
}

// Decide implements deterministic.Decider.
func (w *watchedStream) Decide(pos uint64, kind deterministic.Kind) (uint64, bool) {
	v, ok := w.s.Decide(pos, kind)
	if !ok && !w.warned && pos < uint64(len(w.s.Decisions)) {
		w.warned = true
		w.t.Logf("simrt: warning: -simrt.replay=%s diverged at decision #%d (file: %s, run: %s): the stream was recorded by another test or program, or the code changed; the seed decides where the kinds differ",
			w.path, pos, w.s.Decisions[pos].Kind, kind)
	}
	return v, ok
}
