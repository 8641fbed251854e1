// Package electbench runs one workload on two simulators, side by side:
// simrt (package deterministic) and the floor of a Go simulator, a bare
// event loop with no tasks at all (the design of detsim and its kind). It
// measures what a user choosing between the two would see: the cost of one
// seed of the same work.
//
// The workload is five nodes running a simplified Raft leader election
// (Node: randomised 150–300 ms election timeouts, heartbeats every 50 ms,
// votes under the log-up-to-date rule, no pre-vote), written once as a pure
// state machine that both drivers feed. Every message is lost with
// probability 0.1 and otherwise delivered after a uniform 1–10 ms; at 3 s
// the cluster is split {0,1} | {2,3,4}, at 6 s healed, and at 8 s the run
// ends. At the end of each phase a Checker fails the run if two nodes led
// one term.
//
// RunFloor drives it from a heap of (time, sequence, closure) with its own
// seeded PCG generator. RunSim drives it as a simrt user would: a task per
// node on its own simulated host with its inbox and timers, simnet
// connections between the nodes, the link model for latency and jitter,
// and the network's partition API for the split; the auditor and metrics
// stay on. Both count the messages sent and delivered and the elections
// of each run (Result), and the tests check that the two agree within 2%.
//
// Smallest use:
//
//	r, err := electbench.RunSim(1, electbench.SimConfig{})
//	fmt.Println(r.Sent, r.Delivered, r.Elections, r.Audit, err)
//
// The benchmarks (go test -bench . -benchmem) report ms per run, seeds per
// second on one and two cores, allocations and the work per run of each
// driver; docs/PERFORMANCE.md of the simrt module holds the figures.
package electbench
