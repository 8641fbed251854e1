// Package simnet is the simulator's in-memory network: exact-address
// listeners, ephemeral ports from 32768 taken by every dial attempt, and
// connections whose directions each buffer up to Config.BufferSize bytes
// before Send parks, extended with
// hosts and a link model driven by the runtime's generator.
//
// Smallest use, inside a simulation (the deterministic runtime builds one
// for every run; reach it with ctx.Network()). A network of your own needs
// the simulation's context, to park and keep time, and a seeded generator
// for its faults:
//
//	rng := rand.New(rand.NewPCG(1, 2)) // math/rand/v2
//	n := simnet.New(ctx, rng, nil, simnet.Config{})
//	l, _ := n.Bind(netip.MustParseAddrPort("10.0.0.2:80"))
//	sink, stream, _ := n.Host(netip.MustParseAddr("10.0.0.1")).Dial(l.Addr())
//
// # Hosts and links
//
// Every IP address is a host. Dials through the Network come from
// 127.0.0.1; dials through Host(ip) come from ip. Bytes from host a to
// host b cross the directed link a→b, set with SetLink (or SetDefaultLink):
// latency, jitter, bandwidth shared by the link's connections, loss
// (modelled as retransmission delay) and a reset rate. Bytes of one
// connection always arrive in the order they were sent. A dial takes one
// round trip of the two links' latencies.
//
// # Faults
//
// Cut, Partition and Isolate cut links one way, both ways, or around a
// host; bytes in flight are held until Heal, Join, Rejoin or HealAll (or
// until Config.HoldTimeout resets their connection), and dials across a
// cut fail (or wait up to Config.DialTimeout). Clog holds everything on a
// link until Release. Every change may be made while the simulation runs
// and is recorded on the Recorder.
//
// A fault that could cut nothing is an error: Cut, Partition, Clog and
// SetLink between two addresses of which neither has dialed or been
// declared a host (with Host, which the simulator calls for every
// context's host), or of which one is used by no host, listener or
// connection, and Isolate of an unused address, return an error wrapping
// ErrNoEffect that names the addresses and says what to do. Effects lists
// what each fault that took effect did: Sends held, delayed or dropped,
// dials refused or held, connections reset. Fault draws come from the generator
// passed to New, and only when a rate is configured.
package simnet
