// Package decision is the decision stream of a simulation: every choice a
// run of the simulator (package deterministic) makes, in order, each a
// Kind and the 64 random bits it was made from.
//
// A seed is the shortest description of a stream; a recorded Stream is a
// file. Everything that produces or edits a run's choices speaks this
// package: replaying a recorded run (Stream), coverage-guided fuzzing
// (Bytes), shrinking toward plain choices (Kind.Default, DefaultAfter),
// and exploring from the first time a run reached a goal (Hit,
// HitObserver). It knows nothing of the simulator, so shrinkers and
// explorers import it alone.
//
// The smallest use: record a run, save it, and replay it.
//
//	rec := &decision.Stream{}
//	deterministic.New(deterministic.Config{Seed: 7, Hooks: deterministic.Hooks{Record: rec}}).Start(root)
//	_ = rec.WriteFile("seed7.stream")
//	s, _ := decision.ReadStreamFile("seed7.stream")
//	deterministic.New(deterministic.Config{Seed: 7, Replay: s}).Start(root) // the same run
//
// # File format
//
// A stream file is a header line ("simrt-stream 1" or "simrt-stream 2"),
// in format 2 the fields naming the recording test, and one 9-byte record
// per decision: the kind byte and the value, little-endian. See
// Stream.WriteTo.
package decision
