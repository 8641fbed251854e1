package main

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
)

// Config is what a node of the counter service is told at start: its index
// in the cluster and where every node listens (its own address included).
type Config struct {
	Self  int              // index of this node in Addrs
	Addrs []netip.AddrPort // every node's listening address, in node order
	// Gossip is how often the node sends its counts to every peer; zero
	// means 100ms.
	Gossip time.Duration
}

func (c Config) check() error {
	switch {
	case len(c.Addrs) == 0:
		return errors.New("cluster: no node addresses")
	case c.Self < 0 || c.Self >= len(c.Addrs):
		return fmt.Errorf("cluster: node index %d not in [0, %d)", c.Self, len(c.Addrs))
	case c.Gossip < 0:
		return fmt.Errorf("cluster: negative gossip interval %v", c.Gossip)
	}
	for i, a := range c.Addrs {
		if !a.IsValid() {
			return fmt.Errorf("cluster: address of node %d is not valid", i)
		}
	}
	return nil
}

// Wire format: a dialer's first byte says who it is; then frames of
// op u8 | payload, length-prefixed by u16.
const (
	helloClient = 'C'
	helloPeer   = 'P'
	opBump      = 'B' // client: bump the counter; answer: the total after it
	opRead      = 'R' // client: read the total
	opGossip    = 'G' // peer: its counts, u64 each, by node index
	opTotal     = 'T' // answer to a client: total u64
)

// event is one thing for the node's loop: a client's bump or read, or a
// peer's counts.
type event struct {
	op     byte
	counts []uint64
	reply  *simrt.Oneshot[uint64]
	snap   *simrt.Oneshot[[]uint64] // a gossip task's request for a copy of the counts
}

// node is one incarnation of a counter node. Only the loop task touches
// its state; other tasks send it events, so the same code is safe on the
// simulator's single thread and on production's goroutines.
type node struct {
	cfg   Config
	st    *state
	inbox *simrt.Chan[event]
}

// Run runs one node of the service until its runtime is stopped (or its
// process dies). It is the node's main: the test runs it on simulated
// nodes, cmd-line main runs it under realtime.
func Run(ctx simrt.Context, cfg Config) error {
	if err := cfg.check(); err != nil {
		return err
	}
	if cfg.Gossip == 0 {
		cfg.Gossip = 100 * time.Millisecond
	}
	stopped := ctx.Stopped()
	defer stopped.Release()
	st, err := openStateRetry(ctx, len(cfg.Addrs))
	if err != nil {
		return err
	}
	defer st.close()
	l, err := ctx.Bind(cfg.Addrs[cfg.Self])
	if err != nil {
		return fmt.Errorf("cluster: bind %v: %w", cfg.Addrs[cfg.Self], err)
	}
	n := &node{cfg: cfg, st: st, inbox: simrt.NewChan[event](256)}
	loop := simrt.Spawn(ctx.Child("loop"), func(ctx simrt.Context) error { return n.loop(ctx) })
	accept := simrt.Spawn(ctx.Child("accept"), func(ctx simrt.Context) error { n.accept(ctx, l); return nil })
	for i := range cfg.Addrs {
		if i != cfg.Self {
			simrt.Spawn(ctx.Child("gossip"), func(ctx simrt.Context) error { n.gossip(ctx, i); return nil })
		}
	}
	var loopErr error
	simrt.Select(ctx, stopped.OnStop(nil), loop.OnDone(func(v, err error) { loopErr = cmp.Or(v, err) }))
	l.Close()
	accept.Abort()
	return loopErr
}

// openStateRetry opens the state, waiting for an earlier incarnation of
// this node that is still unwinding to release the blob.
func openStateRetry(ctx simrt.Context, n int) (*state, error) {
	for range 100 {
		st, err := openState(ctx, n)
		if !errors.Is(err, simrt.ErrBlobAlreadyOpen) {
			return st, err
		}
		ctx.Sleep(time.Millisecond)
	}
	return nil, fmt.Errorf("cluster: state blob: %w", simrt.ErrBlobAlreadyOpen)
}

// loop owns the counter: a bump is made durable before it is answered, a
// peer's counts are merged (the maximum of each node's count) and saved.
func (n *node) loop(ctx simrt.Context) error {
	counts := make([]uint64, len(n.st.counts))
	for {
		ev, ok := n.inbox.Recv(ctx)
		if !ok {
			return nil
		}
		copy(counts, n.st.counts)
		changed := false
		switch ev.op {
		case opBump:
			counts[n.cfg.Self]++
			changed = true
		case opGossip:
			for i, c := range ev.counts {
				if i != n.cfg.Self && c > counts[i] {
					counts[i], changed = c, true
				}
			}
		}
		if changed {
			if err := n.st.save(counts); err != nil {
				if ev.reply != nil {
					ev.reply.Close()
				}
				return fmt.Errorf("cluster: save: %w", err)
			}
		}
		if ev.reply != nil {
			ev.reply.Send(total(n.st.counts))
		}
		if ev.snap != nil {
			ev.snap.Send(append([]uint64(nil), n.st.counts...))
		}
	}
}

// accept serves every connection: a client's requests or a peer's gossip.
func (n *node) accept(ctx simrt.Context, l simrt.Listener) {
	conns := ctx.Child("conn")
	for {
		_, sink, stream, err := l.Accept()
		if err != nil {
			return
		}
		simrt.Spawn(conns, func(ctx simrt.Context) error {
			defer sink.Close()
			defer stream.Close()
			hello, err := stream.Recv(1)
			if err != nil {
				return nil
			}
			for {
				op, payload, err := readFrame(stream)
				if err != nil {
					return nil
				}
				ev := event{op: op}
				switch {
				case hello[0] == helloPeer && op == opGossip && len(payload) == 8*len(n.cfg.Addrs):
					ev.counts = make([]uint64, len(n.cfg.Addrs))
					for i := range ev.counts {
						ev.counts[i] = binary.BigEndian.Uint64(payload[8*i:])
					}
					if n.inbox.Send(ctx, ev) != nil {
						return nil
					}
					continue
				case hello[0] == helloClient && (op == opBump || op == opRead):
					ev.reply = simrt.NewOneshot[uint64]()
				default:
					return nil // a bad frame ends the connection
				}
				if n.inbox.Send(ctx, ev) != nil {
					return nil
				}
				t, err := ev.reply.Recv(ctx)
				if err != nil {
					return nil
				}
				if writeFrame(sink, opTotal, binary.BigEndian.AppendUint64(nil, t)) != nil {
					return nil
				}
			}
		})
	}
}

// gossip sends this node's counts to peer i every cfg.Gossip, redialing
// when the connection fails.
func (n *node) gossip(ctx simrt.Context, i int) {
	var sink simrt.Sink
	defer func() {
		if sink != nil {
			sink.Close()
		}
	}()
	for {
		ctx.Sleep(n.cfg.Gossip)
		if sink == nil {
			s, stream, err := ctx.Dial(n.cfg.Addrs[i])
			if err != nil {
				continue
			}
			stream.Close() // gossip is one way
			if s.Send([]byte{helloPeer}) != nil {
				s.Close()
				continue
			}
			sink = s
		}
		counts := n.snapshot(ctx)
		if counts == nil {
			return
		}
		payload := make([]byte, 0, 8*len(counts))
		for _, c := range counts {
			payload = binary.BigEndian.AppendUint64(payload, c)
		}
		if writeFrame(sink, opGossip, payload) != nil {
			sink.Close()
			sink = nil
		}
	}
}

// snapshot returns a copy of the counts, taken by the loop (nil once the
// loop has ended).
func (n *node) snapshot(ctx simrt.Context) []uint64 {
	ev := event{snap: simrt.NewOneshot[[]uint64]()}
	if n.inbox.Send(ctx, ev) != nil {
		return nil
	}
	counts, err := ev.snap.Recv(ctx)
	if err != nil {
		return nil
	}
	return counts
}
