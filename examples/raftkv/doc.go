// Raftkv is a replicated key-value store on etcd raft, run under simrt's
// simulator with faults and checked for linearizability. It is simrt's
// main example: a real, widely used consensus library, driven only through
// simrt.Context, with the seed deciding every fault, so that any failure
// replays exactly.
//
//	cd examples && go run ./raftkv -seeds 0..199          # sweep the healthy system
//	go run ./raftkv -bug follower-read -seeds 0..999       # hunt a planted bug
//	go run ./raftkv -seed 42                               # replay one seed, verbosely
//	go run ./raftkv -seeds 0..299 -quiet -yield 0          # no scheduling points (-yield 0.05 by default)
//
// # The system
//
// Five nodes (-nodes) run go.etcd.io/raft/v3's RawNode, which does no I/O
// and starts no goroutines. Each node is a handful of simrt tasks: one
// loop that owns the RawNode (node.go), a sender task per peer and a
// handler task per accepted connection (transport.go), and a ticker. Raft
// messages travel as length-prefixed frames over simrt connections. The
// loop handles a batch of events (messages, client requests, ticks), then
// processes each Ready in the order raft requires: append the entries and
// the hard state to the write-ahead log (storage.go) and sync it, then send
// the messages, then apply the committed entries, then Advance.
//
// The log is one blob per node of checksummed records; a restarted node
// replays it, cuts off a torn tail, and rebuilds the key-value store by
// re-applying the committed entries (kv.go). Clients (client.go) issue
// get, put and compare-and-set one at a time, each with a sequence number
// so that a retried write applies once; writes go to the leader (a
// follower redirects), reads go to any node and are served after raft
// confirms a read index with a quorum. A client retries on a timeout or a
// redirect until it gets an answer.
//
// Raft draws its election timeouts from a process-wide crypto/rand source
// (globalRand in raft.go), which no seed controls and v3.7.0 offers no
// hook for. So only a leader ticks raft (for heartbeats); followers and
// candidates keep their own election timer, drawn from the runtime's
// seeded generator, and campaign through RawNode.Campaign. Raft's own
// randomized timeout is then never consulted, and a seed decides every
// election: the same seed gives the same audit state (TestSameSeedSameRun).
//
// # Faults
//
// Each raft server is a simulated node (deterministic.Context.AddNode): its
// own host, disk, clock and process, whose main is runNode. The seed draws
// a schedule with package nemesis (nemesis.go), with swarm testing unless
// -swarm=false: each seed enables a random subset of the fault kinds, with
// random weights. Until 60% of the run the faults come and go, several at
// once: partitions (a minority, or a bridge node in both halves), a node
// isolated, a link cut or clogged one way, latency and loss, a process
// killed (its disk keeps the page cache) or powered off (its unsynced
// writes follow the storage fault model), a node paused (a GC or SIGSTOP),
// clocks offset, drifting (up to 45%) or stepped, a slow disk. At the heal
// the nemesis undoes every fault and brings every node back. The schedule
// and what each event did are in the event log (-seed N) and in every
// no-progress failure.
//
// Up to two whole-cluster crashes end a simulation with StartAndRecover;
// the next one resumes with deterministic.FromCheckpoint, which gives each
// node its disk back by name, and the nemesis carries on with the rest of
// the schedule. The storage fault model decides how much of each write
// that was never synced survives (none, or a prefix). The clients are
// outside the cluster: an operation interrupted by a crash is retried
// after it.
//
// # Checks
//
// Every operation is recorded with its simulated invoke and return times
// and the history is checked with porcupine (checker.go), key by key; a
// violation writes porcupine's HTML visualisation to -out. Clients stop
// invoking at 70% of the run; the liveness phase (nemesis.Liveness) then
// requires every client to finish by the end of the run, long after the
// heal, or the run fails with "no progress", every node's tasks and what
// each waits on. A panic
// anywhere, raft's own invariant checks included, fails the run too.
//
// # Planted bugs
//
// -bug NAME plants a realistic mistake (bugs.go):
//
//	unsynced-ack      acknowledge log writes before they are synced
//	follower-read     followers serve reads without a read index
//	forget-hardstate  never persist the hard state (term, vote, commit)
//	no-term-check     answer a pending write by log index alone, without
//	                  checking the applied entry's term
//	unsynced-vote     write a vote (a hard state with no entries) unsynced:
//	                  kept by a kill, lost by a power loss
//	lease-no-drift    leader-lease reads timed on the leader's clock with
//	                  no allowance for drift
//	lease-ticks       leader-lease reads counted in ticks, which a paused
//	                  process does not count
//
// Besides linearizability, the harness checks raft's election safety (no
// term has two leaders) and lease safety: a read served from a leader's
// lease after a leader of a later term was elected fails the run, whether
// or not a client saw a stale value. The two lease bugs switch on leader
// leases with sticky votes (lease.go): safe while clocks agree and
// processes run (no lease safety violation in seeds 0..2999 without clock
// faults), they break under clock drift and under pauses. Seeds to the
// first failure (go run ./raftkv -bug NAME -seeds 0..2999 -quiet
// [-swarm=false], from examples/):
//
//	bug               swarm   no swarm
//	unsynced-ack         13         10
//	follower-read         0          0
//	forget-hardstate      0          0
//	no-term-check        37        124
//	unsynced-vote        90       1077
//	lease-no-drift      331        536
//	lease-ticks         102         24
//
// Each finding replays byte for byte from its seed (TestPlantedBugsFound).
//
// # Shrinking and replaying a failure
//
// -shrink makes a failing seed a small reproduction (simtest.ShrinkFailure,
// the steps of simtest's -simrt.shrink, over nemesis.ShrinkDeep):
// delta debugging over its faults (the nemesis events and the
// whole-cluster crashes, written as power-loss events of every node) drops
// every fault without which the run still fails the same way; the faults
// left are made simpler (a partition becomes an isolate of one node, a
// power loss a power-off of one node, a fault shorter, smaller or later)
// and delta debugging runs again; a fault still kept is tried away under
// fresh seeds (a failure that needs some interleaving and fewer faults is
// the same failure). The schedule gets most of -shrinkruns; once at most
// three faults are left the decision stream goes toward a shorter prefix
// and default choices (a candidate counts only if its run is no longer),
// then the faults once more. While the result has more than three faults,
// -shrinkseeds more failing seeds are shrunk and the smallest kept. It
// prints "from N faults to M" with the faults left, saves the schedule and
// the stream to -out, and prints the one command that replays them
// (TestShrinkPlantedFailure); every planted bug ends at three faults or
// fewer (docs/FINDING.md):
//
//	go run ./raftkv -bug unsynced-vote -seed 90 -shrink
//	go run ./raftkv -seed 90 -bug unsynced-vote -schedule FILE.schedule -replay FILE.stream
//
// -schedule alone runs a seed with a schedule file (nemesis format) in
// place of the faults it draws. -strategy pct runs the PCT scheduler;
// -table measures every planted bug under every strategy (swarm on and
// off, PCT, branching) over -seeds, as docs/FINDING.md reports; FuzzRaftkv
// runs the same hunt under go test -fuzz (-raftkv.bug NAME).
package main
