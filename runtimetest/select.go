package runtimetest

import (
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var selectCases = []testCase{
	{"Select", "Select completes a ready case and skips pending ones; when several are ready it takes one of them (SelectBiased the earliest) and the others consume nothing", selectFirstReady},
	{"SelectLoop", "a Select that picks another case (here a timer) loses no channel message: every value arrives once, in order", selectLoop},
	{"SelectCases", "every kind of case completes a Select: receive, send, oneshot, signal, stop signal, handle, lock and timer", selectEveryCase},
}

func selectFirstReady(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		pending := simrt.NewOneshot[int]()
		a, b := simrt.NewChan[int](1), simrt.NewChan[int](1)
		a.Send(ctx, 1)
		var got int
		i := simrt.Select(ctx,
			pending.OnRecv(func(int, error) { t.Errorf("pending case fired") }),
			a.OnRecv(func(v int, _ bool) { got = v }))
		if i != 1 || got != 1 {
			t.Errorf("Select = %d (value %d), want 1 (value 1)", i, got)
		}

		a.Send(ctx, 2)
		b.Send(ctx, 3)
		got = 0
		i = simrt.Select(ctx,
			a.OnRecv(func(v int, _ bool) { got = v }),
			b.OnRecv(func(v int, _ bool) { got = v }))
		if i < 0 || i > 1 || got != 2+i {
			t.Errorf("Select over two ready channels = %d (value %d), want 0 (value 2) or 1 (value 3)", i, got)
		}
		other := [2]*simrt.Chan[int]{b, a}[i&1]
		if v, ok := other.TryRecv(); !ok || v != 3-i {
			t.Errorf("the case not chosen consumed its value: TryRecv = %v, %v; want %d, true", v, ok, 3-i)
		}

		a.Send(ctx, 2)
		b.Send(ctx, 3)
		got = 0
		i = simrt.SelectBiased(ctx,
			a.OnRecv(func(v int, _ bool) { got = v }),
			b.OnRecv(func(v int, _ bool) { got = v }))
		if i != 0 || got != 2 {
			t.Errorf("SelectBiased over two ready channels = %d (value %d), want 0 (value 2)", i, got)
		}
		if v, ok := b.TryRecv(); !ok || v != 3 {
			t.Errorf("the case not chosen consumed its value: TryRecv = %v, %v; want 3, true", v, ok)
		}
	})
}

func selectLoop(t T, r Runner) {
	const n = 100
	r.run(t, Options{}, func(ctx simrt.Context) {
		ch := simrt.NewChan[int](1)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for i := range n {
				if i%10 == 0 {
					ctx.Sleep(3 * time.Millisecond) // long enough for the timer case to win
				}
				ch.Send(ctx, i)
			}
			ch.Close()
			return struct{}{}
		})
		var got []int
		ticks := 0
		for open := true; open; {
			simrt.Select(ctx,
				ch.OnRecv(func(v int, ok bool) {
					if open = ok; ok {
						got = append(got, v)
					}
				}),
				simrt.After(ctx, time.Millisecond, func() { ticks++ }))
		}
		if len(got) != n {
			t.Errorf("received %d values, want %d", len(got), n)
		}
		for i, v := range got {
			if v != i {
				t.Errorf("value %d = %d: a message was lost or reordered", i, v)
				break
			}
		}
		if r.Simulated && ticks == 0 {
			t.Errorf("the timer case never won: the loop did not exercise switching cases")
		}
	})
}

func selectEveryCase(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		ch := simrt.NewChan[int](1)
		full := simrt.NewChan[int](1)
		full.Send(ctx, 0)
		once := simrt.NewOneshot[int]()
		sig := simrt.NewSignal()
		stop := ctx.Stopped()
		defer stop.Release()
		var mu simrt.Mutex
		mu.Lock(ctx)
		h, complete := storage.NewCompletion[int]()

		never := simrt.NewSignal()
		type step struct {
			name string
			wake func()
			c    simrt.Case
		}
		var fired string
		steps := []step{
			{"recv", func() { ch.TrySend(1) }, ch.OnRecv(func(int, bool) { fired = "recv" })},
			{"send", func() { full.TryRecv() }, full.OnSend(1, func(error) { fired = "send" })},
			{"oneshot", func() { once.Send(1) }, once.OnRecv(func(int, error) { fired = "oneshot" })},
			{"signal", func() { sig.Fire(1) }, sig.OnFire(func(int) { fired = "signal" })},
			{"handle", func() { complete(1, nil) }, h.OnDone(func(int, error) { fired = "handle" })},
			{"lock", func() { mu.Unlock() }, mu.OnLock(func() { fired = "lock" })},
			{"stop", func() {
				simrt.Spawn(ctx, func(ctx simrt.Context) error { return ctx.Stop(1, 0) })
			}, stop.OnStop(func(int) { fired = "stop" })},
			{"timer", func() {}, simrt.After(ctx, time.Millisecond, func() { fired = "timer" })},
		}
		for _, s := range steps {
			fired = ""
			simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				ctx.Sleep(time.Millisecond)
				s.wake()
				return struct{}{}
			})
			i := simrt.Select(ctx, never.OnFire(nil), s.c)
			if i != 1 || fired != s.name {
				t.Errorf("Select woken by %s = case %d, callback %q; want case 1, callback %q", s.name, i, fired, s.name)
			}
		}
		mu.Unlock()
	})
}
