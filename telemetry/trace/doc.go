// Package trace turns a simulation's event log into a trace a person can
// look at: a Chrome trace-event JSON file, which the Perfetto UI
// (ui.perfetto.dev, "Open trace file") and chrome://tracing open.
//
// The trace is built from the events the auditor logs (turn the log on with
// deterministic.Config.Hooks.EventLog = -1), so it shows exactly what the audit
// fingerprints and nothing else:
//
//   - one track per task, named after the task and its id; each resume is a
//     slice, the gaps between slices are the times the task was parked;
//   - a track "executor" for what happens between tasks (timer callbacks);
//   - every audited event (random draws, metric registration, DNS, network
//     and storage operations) as an instant on the track of the task that
//     caused it, with its fields as arguments;
//   - timers as async slices from the moment they were set to their
//     deadline;
//   - arrows from a spawn to the first resume of the new task, and from
//     each network send to the receive that got its first byte.
//
// Time is simulated time, relative to the first event. Simulated time does
// not move while a task runs, so the resumes of one executor iteration all
// happen at one instant; the trace lays them out one after another, in
// executor order, inside that instant's share of the timeline (at most the
// smallest gap between two instants of the run, normally one Cycle), so
// their order stays visible.
//
// Network receives are matched to sends by content (the audit records no
// connection identity): a receive reads from the oldest unread send, by
// another task, whose unread bytes agree with it, and on into that task's
// next sends when it is longer.
//
// Smallest use:
//
//	var log []audit.Event
//	deterministic.New(deterministic.Config{Hooks: deterministic.Hooks{EventLog: -1}}).Start(func(ctx *deterministic.Context) {
//		defer func() { log = ctx.Auditor().Log().Events() }()
//		// ... the simulation ...
//	})
//	err := trace.Write(w, log, trace.Options{Title: "seed 0"})
//
// simtest writes such a file for a test run with -simrt.trace=out.json.
package trace
