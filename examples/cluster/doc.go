// Cluster is a three-node service, a replicated grow-only counter, whose
// node program is written once against simrt.Context: a test runs it on
// simulated nodes (deterministic.Context.AddNode) that it kills, powers
// off, restarts, pauses and partitions, and the command line runs the same
// Run under realtime.Main, one process per node.
//
// # The service
//
// Each node keeps a G-counter, one count per node, on its disk (state.go:
// two checksummed slots written in turn, each synced). A client's bump
// adds one to the count of the node it asks and is answered only once that
// is durable; nodes gossip their counts to each other (server.go) and merge
// them by maximum, so every node converges on the total. Properties,
// checked in cluster_test.go over seeds and scripts of faults:
//
//   - no acknowledged bump is lost, by a kill (the page cache keeps
//     unsynced writes) or by a power loss (only synced writes survive);
//   - no bump is counted twice: the total never exceeds the bumps sent;
//   - after the faults heal, the nodes agree on the total within 2s.
//
// # Testing with nodes
//
// The test gives each node its name, host and main; everything a node's
// tasks dial leaves from its host, its listener binds there, and its disk
// is its own:
//
//	n, err := ctx.AddNode(deterministic.NodeConfig{
//		Name: "n1",
//		Host: netip.MustParseAddr("10.0.0.1"),
//		Main: func(ctx simrt.Context) { _ = Run(ctx, cfg) },
//	})
//	...
//	n.Kill()     // kill -9: peers see resets, the disk keeps its page cache
//	n.Restart()  // Run again, on what the disk kept
//	n.PowerOff() // unsynced writes follow the storage fault model
//
// # Running in production
//
// The same Run, under realtime, one process per node (from examples/):
//
//	go run ./cluster -node n1 -peers n1=127.0.0.1:7101,n2=127.0.0.1:7102,n3=127.0.0.1:7103 -data /tmp/n1 &
//	go run ./cluster -node n2 -peers n1=127.0.0.1:7101,n2=127.0.0.1:7102,n3=127.0.0.1:7103 -data /tmp/n2 &
//	go run ./cluster -node n3 -peers n1=127.0.0.1:7101,n2=127.0.0.1:7102,n3=127.0.0.1:7103 -data /tmp/n3 &
//	go run ./cluster -bump 127.0.0.1:7102   # prints the total after the bump
//
// -peers lists every node in the same order on every node (the order gives
// each its index in the counter). SIGINT or SIGTERM stops a node
// gracefully; kill -9 it and start it again with the same -data, and it
// carries on from its disk.
package main
