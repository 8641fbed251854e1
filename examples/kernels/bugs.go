package main

import (
	"github.com/simrt/simrt"
)

// Each kernel below is a small, realistic instance of a classic Go
// concurrency bug, written against simrt primitives. A kernel reports true
// when it observed the bug's symptom (a wrong result or a violated
// property); a stall verdict of the runtime also counts as detection (see
// run). Each has a fixed twin that must never report true.

// lostWakeup: the consumer checks the flag, unlocks, then parks; the
// producer's non-blocking notify on an unbuffered channel is dropped when
// the consumer is between Unlock and Recv, and the consumer sleeps forever
// (stall). Fixed: a one-slot buffer keeps the notification.
func lostWakeup(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var mu simrt.Mutex
		ready := false
		capacity := 0
		if fixed {
			capacity = 1
		}
		notify := simrt.NewChan[struct{}](capacity)
		consumer := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			mu.Lock(ctx)
			r := ready
			mu.Unlock()
			if !r {
				notify.Recv(ctx)
			}
			return struct{}{}
		})
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			mu.Lock(ctx)
			ready = true
			mu.Unlock()
			notify.TrySend(struct{}{})
			return struct{}{}
		})
		consumer.Await(ctx)
		return false
	}
}

// missedClose: the producer sends its last item, then closes a separate
// done channel; the consumer Selects over data and done and, when both are
// ready, may take done and drop the item. Fixed: the producer closes the
// data channel itself and the consumer drains it.
func missedClose(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		data := simrt.NewChan[int](1)
		done := simrt.NewChan[struct{}](0)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			data.Send(ctx, 1)
			if fixed {
				data.Close()
			} else {
				done.Close()
			}
			return struct{}{}
		})
		got := 0
		if fixed {
			for {
				v, ok := data.Recv(ctx)
				if !ok {
					break
				}
				got += v
			}
			return got != 1
		}
		for open := true; open; {
			simrt.Select(ctx,
				data.OnRecv(func(v int, ok bool) { got += v }),
				done.OnRecv(func(struct{}, bool) { open = false }))
		}
		return got != 1
	}
}

// lockOrder: two tasks take the same two mutexes in opposite order. The
// first locks are uncontended; only a switch between a task's first and
// second Lock deadlocks them (stall). Fixed: one global order.
func lockOrder(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var a, b simrt.Mutex
		both := func(first, second *simrt.Mutex) func(ctx simrt.Context) struct{} {
			return func(ctx simrt.Context) struct{} {
				first.Lock(ctx)
				second.Lock(ctx)
				second.Unlock()
				first.Unlock()
				return struct{}{}
			}
		}
		h1 := simrt.Spawn(ctx, both(&a, &b))
		var h2 *simrt.Handle[struct{}]
		if fixed {
			h2 = simrt.Spawn(ctx, both(&a, &b))
		} else {
			h2 = simrt.Spawn(ctx, both(&b, &a))
		}
		h1.Await(ctx)
		h2.Await(ctx)
		return false
	}
}

// checkThenAct: a withdrawal checks the balance in one critical section
// and debits it in the next; another withdrawal between the two overdraws
// the account. Fixed: check and debit under one lock.
func checkThenAct(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var mu simrt.Mutex
		balance := 10
		withdraw := func(ctx simrt.Context) struct{} {
			mu.Lock(ctx)
			ok := balance >= 10
			if fixed {
				if ok {
					balance -= 10
				}
				mu.Unlock()
				return struct{}{}
			}
			mu.Unlock()
			if ok {
				mu.Lock(ctx)
				balance -= 10
				mu.Unlock()
			}
			return struct{}{}
		}
		h1 := simrt.Spawn(ctx, withdraw)
		h2 := simrt.Spawn(ctx, withdraw)
		h1.Await(ctx)
		h2.Await(ctx)
		return balance < 0
	}
}

// childFirst: the parent spawns a worker and only then fills in the
// configuration the worker reads, assuming the child starts later. A child
// that runs before its parent's next operation reads the zero value.
// Fixed: configure before spawning.
func childFirst(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var mu simrt.Mutex
		limit := 0
		if fixed {
			limit = 8
		}
		seen := simrt.NewChan[int](1)
		h := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			mu.Lock(ctx)
			l := limit
			mu.Unlock()
			seen.Send(ctx, l)
			return struct{}{}
		})
		mu.Lock(ctx)
		limit = 8
		mu.Unlock()
		l, _ := seen.Recv(ctx)
		h.Await(ctx)
		return l != 8
	}
}

// orderViolation: a user task assumes an opener task, spawned just before
// it, has already opened the connection. Fixed: the user waits for the
// opener's Signal.
func orderViolation(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var mu simrt.Mutex
		open := false
		opened := simrt.NewSignal()
		used := false
		broken := false
		h1 := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			mu.Lock(ctx)
			open = true
			mu.Unlock()
			opened.Fire(1)
			return struct{}{}
		})
		h2 := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			if fixed {
				opened.Wait(ctx)
			}
			mu.Lock(ctx)
			used, broken = true, !open
			mu.Unlock()
			return struct{}{}
		})
		h1.Await(ctx)
		h2.Await(ctx)
		return used && broken
	}
}

// doubleChecked: lazy initialization publishes its ready flag before the
// value is loaded (the load takes another lock), so a reader on the fast
// path sees ready with a zero value. Fixed: Once.
func doubleChecked(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		var mu, store simrt.Mutex
		var once simrt.Once
		ready, value := false, 0
		load := func(ctx simrt.Context) int {
			store.Lock(ctx)
			defer store.Unlock()
			return 42
		}
		get := func(ctx simrt.Context) int {
			if fixed {
				once.Do(ctx, func() { value = load(ctx) })
				return value
			}
			if ready {
				return value
			}
			mu.Lock(ctx)
			if !ready {
				ready = true
				value = load(ctx)
			}
			mu.Unlock()
			return value
		}
		bad := false
		h := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			if get(ctx) != 42 {
				bad = true
			}
			return struct{}{}
		})
		if get(ctx) != 42 {
			bad = true
		}
		h.Await(ctx)
		return bad
	}
}

// selectStarves: a worker loop Selects over a quit channel and a work
// queue that is never empty, assuming quit is handled at once; Select does
// not prioritise, so the worker keeps processing after quit. Fixed: poll
// quit before each item.
func selectStarves(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		work := simrt.NewChan[int](4)
		quit := simrt.NewSignal()
		for i := range 4 {
			work.TrySend(i)
		}
		quit.Fire(1)
		afterQuit := 0
		for range 4 {
			if _, stopped := quit.Fired(); fixed && stopped {
				break
			}
			stop := false
			simrt.Select(ctx,
				work.OnRecv(func(int, bool) { afterQuit++ }),
				quit.OnFire(func(int) { stop = true }))
			if stop {
				break
			}
		}
		return afterQuit > 0
	}
}
