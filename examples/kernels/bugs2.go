package main

import (
	"errors"
	"time"

	"github.com/simrt/simrt"
)

// leakedTask: a request handler returns on cancellation while its worker
// is still about to send the reply on an unbuffered channel; the worker is
// then blocked forever. Fixed: a one-slot reply buffer.
func leakedTask(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		capacity := 0
		if fixed {
			capacity = 1
		}
		reply := simrt.NewChan[int](capacity)
		cancel := simrt.NewSignal()
		worker := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			reply.Send(ctx, 1)
			return struct{}{}
		})
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			cancel.Fire(1)
			return struct{}{}
		})
		simrt.Select(ctx,
			reply.OnRecv(func(int, bool) {}),
			cancel.OnFire(func(int) {}))
		ctx.Sleep(time.Second) // long after anything could still happen
		return !worker.Done()
	}
}

// timeoutHalf: a client's call (send request, receive response) runs
// under a Timeout; a server delayed by a background task holding its lock
// answers after the client gave up (the compaction the first write
// triggers takes the lock first), and the client's next call receives
// the stale response. Fixed: responses carry the request id and stale
// ones are discarded.
func timeoutHalf(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var mu simrt.Mutex
		req := simrt.NewChan[int](1)
		resp := simrt.NewChan[int](1)
		compact := func(ctx simrt.Context) struct{} {
			mu.Lock(ctx)
			ctx.Sleep(20 * time.Millisecond)
			mu.Unlock()
			return struct{}{}
		}
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} { // server
			for n := 0; ; n++ {
				id, ok := req.Recv(ctx)
				if !ok {
					return struct{}{}
				}
				if n == 0 {
					simrt.Spawn(ctx, compact) // the first write triggers a compaction
				}
				mu.Lock(ctx)
				mu.Unlock()
				resp.Send(ctx, id)
			}
		})
		call := func(id int) (int, error) {
			got := 0
			err := simrt.Timeout(ctx, 10*time.Millisecond, func() error {
				if err := req.Send(ctx, id); err != nil {
					return err
				}
				for {
					v, _ := resp.Recv(ctx)
					if !fixed || v == id {
						got = v
						return nil
					}
				}
			})
			return got, err
		}
		wrong := false
		for id := 1; id <= 2; id++ {
			got, err := call(id)
			if errors.Is(err, simrt.ErrTimeout) {
				ctx.Sleep(30 * time.Millisecond) // back off, then the next call
				continue
			}
			if err != nil || got != id {
				wrong = true
			}
		}
		req.Close()
		return wrong
	}
}

// doubleDone: a worker whose fast path (TryLock) fails reports Done before
// retrying with Lock, and its deferred Done fires again: the WaitGroup
// reaches zero while a worker still runs (or goes negative, which panics).
// Fixed: only the deferred Done. Depth 3: one worker must be preempted
// after its warm-up Lock/Unlock and before its TryLock, and another after
// its successful TryLock while it holds the lock (a worker that finds the
// lock held at its warm-up Lock just waits for it).
func doubleDone(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var mu simrt.Mutex
		var wg simrt.WaitGroup
		finished := 0
		work := func(ctx simrt.Context) struct{} {
			defer wg.Done()
			if !mu.TryLock() {
				if !fixed {
					wg.Done() // "give up the slot while we wait"
				}
				mu.Lock(ctx)
			}
			finished++
			mu.Unlock()
			return struct{}{}
		}
		wg.Add(3)
		for range 3 {
			simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				mu.Lock(ctx) // hold the lock briefly, as a reader of the result would
				mu.Unlock()
				return work(ctx)
			})
		}
		wg.Wait(ctx)
		return finished != 3
	}
}

// retryDup: a client retries a write whose acknowledgement was lost (the
// server acknowledges with a non-blocking send, dropped when the client is
// not yet waiting), and the server applies it twice. Fixed: the server
// deduplicates by request id.
func retryDup(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var mu simrt.Mutex
		writes := simrt.NewChan[int](1)
		ack := simrt.NewChan[int](0)
		applied := map[int]int{}
		balance := 0
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for {
				id, ok := writes.Recv(ctx)
				if !ok {
					return struct{}{}
				}
				mu.Lock(ctx)
				if !fixed || applied[id] == 0 {
					balance += 10
				}
				applied[id]++
				mu.Unlock()
				ack.TrySend(id)
			}
		})
		for attempt := 0; attempt < 3; attempt++ {
			writes.Send(ctx, 7)
			err := simrt.Timeout(ctx, 10*time.Millisecond, func() error {
				ack.Recv(ctx)
				return nil
			})
			if err == nil {
				break
			}
		}
		writes.Close()
		ctx.Sleep(time.Millisecond)
		mu.Lock(ctx)
		defer mu.Unlock()
		return balance != 10
	}
}
