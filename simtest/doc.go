// Package simtest runs simulations inside go test: one seed with Run, many
// seeds across all cores with Explore, and the determinism check with
// CheckDeterminism. A failure is reported with its seed, simulated time,
// failing task and stack, the last events before it, and the exact command
// that replays it.
//
// Smallest use:
//
//	func TestElection(t *testing.T) {
//		simtest.Explore(t, deterministic.Config{Timeout: time.Minute}, func(t *testing.T, ctx *deterministic.Context) {
//			leader := elect(ctx, 5) // system code takes a simrt.Context
//			if leader < 0 {
//				t.Fatal("no leader")
//			}
//		})
//	}
//
// The root function receives the simulator's *deterministic.Context rather
// than the simrt.Context interface: it is the test's side of the run, where
// the simulator's extras (Auditor, RegisterHost, fault controls) belong,
// and it is a simrt.Context, so it passes straight to system code. It also
// receives the *testing.T to report on: under Explore that is the seed's
// own subtest, so a t.Error is pinned to its seed; under Run it is the test
// itself. The two have the same signature, so switching between them is a
// one-word change.
//
// # Seeds
//
// Flags registered by this package choose the seeds (the environment
// variable in parentheses is read when the flag is not given, for batch
// systems where flags are awkward):
//
//	-simrt.seeds=0..999   seeds for Explore (SIMRT_SEEDS); default 0..99, 0..9 with -short
//	-simrt.seed=N         replay one seed: Run and Explore run only N (SIMRT_SEED)
//	-simrt.shard=i/n      every n-th seed from position i, to split a sweep (SIMRT_SHARD)
//	-simrt.keepgoing      report every failing seed, not just the first (SIMRT_KEEPGOING)
//	-simrt.parallel=N     simulations at once in Explore; default GOMAXPROCS (SIMRT_PARALLEL)
//	-simrt.events=N       last events in a failure report; default 20 for one seed, 0 (no event
//	                      log, the fastest) when Explore runs several (SIMRT_EVENTS)
//	-simrt.trace=out.json write a Perfetto trace of each simulation (SIMRT_TRACE)
//	-simrt.checkdeterminism  run each simulation twice and compare (SIMRT_CHECKDETERMINISM)
//	-simrt.cryptorand     seed crypto/... per simulation, see SeedCrypto (SIMRT_CRYPTORAND)
//	-simrt.strict         fail a sweep whose property goals were missed (SIMRT_STRICT)
//	-simrt.coverfile=F    append each Explore's coverage (properties, Buggify sites, faults
//	                      injected by kind) to F as one line of JSON; simrt sweep sets it
//	                      per process and merges the files (SIMRT_COVERFILE)
//
// The flags are the package's only mutable state: the test binary sets
// them while parsing its command line, before any test runs. They are
// registered on flag.CommandLine when the package is imported.
//
// A failing seed prints its replay command:
//
//	go test -run '^TestElection$' ./raft -simrt.seed=417
//
// and cmd/simrt wraps the same flags: simrt sweep ./raft -run TestElection
// -seeds 0..99999 spreads a sweep over processes, simrt replay ./raft -run
// TestElection -seed 417 -trace out.json replays one and writes its trace
// (open it at ui.perfetto.dev).
//
// The failing seed's test (its subtest under Explore) also carries the
// seed, the replay command and the shrink command as test attributes
// (T.Attr: simrt.seed, simrt.replay, simrt.shrink), which go test -json
// reports as "attr" events. With go test's -artifacts flag, a relative
// -simrt.trace, -simrt.record or -simrt.shrinkout file and a failing seed's
// nemesis schedule are written in the test's artifact directory
// (T.ArtifactDir, under -outputdir's _artifacts).
//
// # Failures
//
// A simulation fails when a task panics (without Config.CatchPanics), when
// the runtime stalls, times out or livelocks, or when the test is marked failed from
// inside it. t.Fatal and t.FailNow work from any task: the simulation is
// unwound and cleaned up, the report is logged, and the test (or the seed's
// subtest) ends. Use the t passed to the root function, never another.
//
// A report says where the failure was: a panic's task and stack; for
// t.Error and t.Fatal, the simulated time and task of the resume after
// which the test was first marked failed (found when the event log is on,
// as it is for one seed: Run or a replay; a sweep's report says to replay);
// for "runtime stalled", "runtime timeout" and "runtime livelock", every
// live task, what it waits on and since when (see deterministic.Verdict),
// and for a livelock first the tasks that kept running. The last events
// before the failure follow, with task names and decoded ids and timers,
// the failing task's marked '>'. Each simulation's log (simrt.Logger, see
// deterministic.Config.Hooks.LogHandler) is captured, and its last 100 records
// are printed in the report of a failing seed, never for a passing one.
//
// A log.Fatal (Fatalf, Fatalln) called from a simulated task does not end
// the test process: while simulations run, simtest writes the standard
// logger's output, and turns the line of a Fatal into a panic of
// *LogFatal in the task that called it. The seed fails with its report
// and replay command, also with Config.CatchPanics, and a sweep goes on
// to its other seeds. os.Exit(0) panics under go test and fails its seed
// the same way. Nothing in Go sees os.Exit with another code, or the Fatal
// of a Logger writing elsewhere: they end the process. Under go test -v
// the last "=== RUN .../seed=N" line names the seed; simrt sweep runs
// each chunk of seeds in its own process, reports such a seed as failed
// ("the test process exited while the seed ran") with its replay command,
// and runs the rest of the chunk in a new process.
//
// # Determinism
//
// Same seed, same program, same run. A test breaks this by letting
// something outside the simulation decide: ranging over a map to pick a
// peer, a native goroutine, the wall clock, the math/rand globals.
// CheckDeterminism (or -simrt.checkdeterminism for every test) runs a seed
// twice with the event log on and names the first event where the runs
// part, with the likely causes. Crypto is the one source a test cannot
// route through the simulator's reader; SeedCrypto seeds it.
//
// # Properties
//
// System code states properties with simrt.Always, AlwaysOrUnreachable,
// Sometimes, Reachable and Unreachable, and marks fault-injection points
// with simrt.Buggify. A false Always (or a reached Unreachable) fails the
// seed like a panic, and the report names the property, its call site, the
// seed and the position in the run. At the end of a sweep Explore logs
// every property with the number of seeds that reached it, made it true or
// failed it, every Buggify site with the seeds that enabled and fired it,
// and every property or site with a constant message that the package's
// source (and its module's packages it imports) holds but no seed reached.
// With -simrt.strict a missed goal fails the sweep: an Always or Reachable
// never reached, a Sometimes never true, a Buggify site that never fired.
// A strict sweep judges every property of the package, so run a package's
// strict sweep alone (-run) when its tests cover different properties;
// a replay of one seed or a shard is never judged.
//
// # Minimal reproductions
//
// Every run is a stream of decisions (decision.Stream) and, under Nemesis,
// a fault schedule. With -simrt.shrink (SIMRT_SHRINK) a failing seed is
// shrunk, whatever caused it (ShrinkFailure): the fault schedule first
// (fewer, simpler faults: nemesis.ShrinkDeep), then the decision stream
// (the shortest prefix that still fails, decisions set to their kinds'
// defaults, no yield, first choice, no fault, by delta debugging), then the
// schedule again with that stream. Each candidate runs in a fresh process
// of the test binary and is kept only if it fails the same way (the
// report's first line with numbers blanked out, and for t.Error the task);
// a stream candidate also only if its run is no longer than the one it
// replaces. Those processes get the package's own flags (those after
// -args, or unknown to go test) as this one did, and -test.short; every
// other -test flag is their own. The result is saved, by default as testdata/simrt/TEST-seedN.stream
// (and .schedule) in the package, and its one replay command printed.
// Every failure report of Run and Explore ends with the command that
// shrinks it:
//
//	simrt: shrank seed 10 (...) from 12 faults and 3,256 decisions (3,256 not the default) to 2 and 5,860 (0) in 71 runs; ...
//	replay: go test -run '^TestX$' ./raft -simrt.seed=10 -simrt.replay=testdata/simrt/TestX-seed10.stream -simrt.schedule=testdata/simrt/TestX-seed10.schedule
//
// With -simrt.inevitable (SIMRT_INEVITABLE) a failing seed's prefixes are
// replayed with -simrt.continuations fresh seeds each (default 20), under
// the failing run's fault schedule, and the shortest prefix after which
// -simrt.inevitablerate of them (default 0.95) fail the same way is
// reported, with the decisions and the events around its last decision;
// when no prefix reaches it, the report says so with the best share. The flags:
//
//	-simrt.replay=F       replay the decision stream file F, the seed past its end (SIMRT_REPLAY)
//	-simrt.replaydefaults with -simrt.replay: defaults, not the seed, past its end;
//	                      alone: every decision its default, the plainest run
//	-simrt.record=F       write the run's decision stream to F (one seed) (SIMRT_RECORD)
//	-simrt.shrink         shrink a failing seed: its faults and its decisions (SIMRT_SHRINK)
//	-simrt.shrinkout=F    save the shrunk stream to F (default testdata/simrt/TEST-seedN.stream)
//	                      (SIMRT_SHRINKOUT)
//	-simrt.shrinkruns=N   at most N candidate runs while shrinking, besides the failing
//	                      run and the replay of the result; default 400 (SIMRT_SHRINKRUNS)
//	-simrt.inevitable     find when a failing seed's failure became inevitable (SIMRT_INEVITABLE)
//	-simrt.continuations=N  fresh continuations per point for -simrt.inevitable; default 20
//	                      (SIMRT_CONTINUATIONS)
//	-simrt.inevitablerate=R  the fraction of them that must fail; default 0.95
//	                      (SIMRT_INEVITABLERATE)
//
// For a test that calls Nemesis, the fault schedule:
//
//	-simrt.schedule=F     run the fault schedule file F instead of drawing one from the seed
//	                      (SIMRT_SCHEDULE)
//	-simrt.shrinkschedule the old name of -simrt.shrink (SIMRT_SHRINKSCHEDULE)
//
// A stream file names the test (and package) that recorded it. A replay
// by another test logs a warning naming both before the run (the decisions
// are the other test's; the replay is lenient, so a renamed test still
// replays its old files), and every replay, with or without
// -simrt.replaydefaults, logs a warning at the first decision whose kind
// differs from the file's: from there on the run is not the recorded one.
//
// The files these flags name are checked once, before the first seed: a
// file to read (-simrt.replay, -simrt.schedule) must exist and parse, a
// file to write (-simrt.trace, -simrt.record, -simrt.coverfile) must be
// creatable; a bad one fails the test in one line.
package simtest
