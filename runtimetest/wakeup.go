package runtimetest

import (
	"errors"
	"time"

	"github.com/simrt/simrt"
)

var wakeupCases = []testCase{
	{"ChanSenderWakeupNotLost", "a sender woken because a receiver freed a slot of a bounded channel, and that then hands its value straight to a receiver parked meanwhile, passes the wake-up on: the next parked sender is not left waiting on a channel with room (capacity 1, filled, two senders parked, plain or in a Select, three Recvs)", chanSenderWakeupNotLost},
}

// wakeupRounds is how many times the lost wake-up reproduction runs: the
// shape needs the woken sender to run after the receiver has parked again,
// which a simulation's schedule gives on about half the seeds (45 of 100 on
// the defective code) and production on nearly every run.
const wakeupRounds = 20

func chanSenderWakeupNotLost(t T, r Runner) {
	rounds := wakeupRounds
	if !r.Simulated {
		rounds = 5 // each round waits for the senders to park
	}
	for round := 0; round < 2*rounds && !t.Failed(); round++ {
		seed, inSelect := uint64(round/2), round%2 == 1
		r.run(t, Options{Seed: seed}, func(ctx simrt.Context) {
			ch := simrt.NewChan[int](1)
			if err := ch.Send(ctx, 0); err != nil {
				t.Fatalf("seed %d: Send of the first value: %v", seed, err)
			}
			for v := 1; v <= 2; v++ {
				simrt.Spawn(ctx, func(ctx simrt.Context) error {
					if inSelect { // the same shape with a Select's send case
						var err error
						simrt.Select(ctx, ch.OnSend(v, func(e error) { err = e }), simrt.After(ctx, time.Hour, nil))
						return err
					}
					return ch.Send(ctx, v)
				})
			}
			parked(ctx) // both senders park on the full channel
			seen := 0
			for i := range 3 {
				var v int
				var ok bool
				err := simrt.Timeout(ctx, 2*time.Second, func() error {
					v, ok = ch.Recv(ctx)
					return nil
				})
				if errors.Is(err, simrt.ErrTimeout) {
					t.Errorf("seed %d, senders in a Select %v: Recv %d parked for 2s with a sender parked on a channel with room (a lost wake-up); got %03b so far", seed, inSelect, i+1, seen)
					return
				}
				if !ok {
					t.Fatalf("seed %d: Recv %d reported the channel closed", seed, i+1)
				}
				seen |= 1 << v
			}
			if seen != 0b111 {
				t.Errorf("seed %d: received %03b, want each of 0, 1, 2 once", seed, seen)
			}
		})
	}
}
