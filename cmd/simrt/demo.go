package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

const demoUsage = `usage: simrt demo [-seed N] [-rounds N]

Demo runs a token ring in the simulator and prints what happened, in
simulated time: the same seed prints the same bytes.

exit codes: 0 the demo ran; 2 bad flags.
`

// runDemo runs a token ring: four nodes pass a token around over channels,
// each holding it for a random time; a lossy link sometimes drops it, and
// the sender notices with a timeout and sends again. After a few rounds the
// root stops the ring through the shutdown signal. Everything printed is in
// simulated time, so the same seed prints the same bytes.
func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo")
	seed := fs.Uint64("seed", 0, "seed of the simulation")
	rounds := fs.Int("rounds", 3, "how many times the token goes round (1 to 1000)")
	if err := fs.Parse(args); err != nil {
		return parseFailed(fs, demoUsage, err, stdout, stderr)
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "simrt demo: unexpected argument %q: the demo takes only flags\n", fs.Arg(0))
		return 2
	case *rounds < 1 || *rounds > maxRounds:
		fmt.Fprintf(stderr, "simrt demo: -rounds %d: the token goes round 1 to %d times\n", *rounds, maxRounds)
		return 2
	}
	demo(stdout, *seed, *rounds)
	return 0
}

// maxRounds bounds -rounds so that the ring finishes well inside the
// demo's hour of simulated time (a round takes well under a second).
const maxRounds = 1000

type token struct {
	round, hop int
}

func demo(w io.Writer, seed uint64, rounds int) {
	const nodes = 4
	deterministic.New(deterministic.Config{Seed: seed, Timeout: time.Hour}).Start(func(ctx *deterministic.Context) {
		start := ctx.Now()
		logf := func(format string, args ...any) {
			fmt.Fprintf(w, "%9s  %s\n", ctx.Now().Sub(start), fmt.Sprintf(format, args...))
		}
		inbox := make([]*simrt.Chan[token], nodes)
		acks := make([]*simrt.Chan[int], nodes)
		for i := range inbox {
			inbox[i] = simrt.NewChan[token](1)
			acks[i] = simrt.NewUnboundedChan[int]()
		}
		finished := simrt.NewOneshot[int]()
		for id := range nodes {
			simrt.Spawn(ctx.Child(fmt.Sprintf("node%d", id)), func(ctx simrt.Context) struct{} {
				stop := ctx.Stopped()
				next := (id + 1) % nodes
				for {
					var tok token
					var open, stopped bool
					simrt.Select(ctx,
						stop.OnStop(func(int) { stopped = true }),
						inbox[id].OnRecv(func(t token, ok bool) { tok, open = t, ok }),
					)
					if stopped || !open {
						logf("node%d: shutting down", id)
						return struct{}{}
					}
					acks[(id+nodes-1)%nodes].Send(ctx, tok.hop)
					hold := time.Duration(1+ctx.Rand().IntN(20)) * time.Millisecond
					logf("node%d: got token (round %d, hop %d), holding it %v", id, tok.round, tok.hop, hold)
					ctx.Sleep(hold)
					if id == nodes-1 && tok.round == rounds {
						finished.Send(tok.hop)
						continue
					}
					tok.hop++
					if id == nodes-1 {
						tok.round++
					}
					for attempt := 1; ; attempt++ {
						if ctx.Rand().IntN(4) == 0 {
							logf("node%d: link to node%d dropped the token (attempt %d)", id, next, attempt)
						} else {
							inbox[next].Send(ctx, tok)
						}
						err := simrt.Timeout(ctx, 50*time.Millisecond, func() error {
							for {
								if hop, _ := acks[id].Recv(ctx); hop == tok.hop {
									return nil
								}
							}
						})
						if err == nil {
							break
						}
						if !errors.Is(err, simrt.ErrTimeout) {
							panic(err)
						}
						logf("node%d: no ack from node%d after 50ms, sending again", id, next)
					}
				}
			})
		}
		logf("root: starting a ring of %d nodes for %d rounds", nodes, rounds)
		inbox[0].Send(ctx, token{round: 1})
		hops, _ := finished.Recv(ctx)
		logf("root: token came home after %d hops; stopping", hops)
		if err := ctx.Stop(0, time.Second); err != nil {
			logf("root: stop: %v", err)
		}
		ctx.Sleep(time.Millisecond) // let the nodes print their goodbyes
		fmt.Fprintf(w, "\nseed %d: simulated %v, audit state %s\n", seed, ctx.Now().Sub(start), ctx.Auditor().State())
	})
}
