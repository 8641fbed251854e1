package runtimetest

import (
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
)

var unbufferedCases = []testCase{
	{"UnbufferedRendezvous", "on an unbuffered channel (NewChan(0)) a Send completes only when a receiver takes the value, a Recv only when a sender arrives; TrySend and TryRecv succeed only with a partner waiting", unbufferedRendezvous},
	{"UnbufferedSelect", "Select send and receive cases on an unbuffered channel meet a plain partner or another Select; a case not chosen delivers and takes nothing", unbufferedSelect},
	{"UnbufferedClose", "closing an unbuffered channel fails a parked Send with ErrClosed (value undelivered) and ends a parked Recv with ok=false; a receive case on it is then always ready", unbufferedClose},
	{"UnbufferedManyPartners", "many senders and receivers, some in Selects that give up on a timer and retry, pass every value exactly once", unbufferedManyPartners},
}

func unbufferedRendezvous(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		ch := simrt.NewChan[int](0)
		if ch.TrySend(1) {
			t.Errorf("TrySend with no receiver waiting succeeded")
		}
		if v, ok := ch.TryRecv(); ok {
			t.Errorf("TryRecv with no sender waiting = %v, true", v)
		}
		var sent atomic.Bool
		h := simrt.Spawn(ctx, func(ctx simrt.Context) error {
			err := ch.Send(ctx, 7)
			sent.Store(true)
			return err
		})
		ctx.Sleep(time.Millisecond)
		if sent.Load() {
			t.Errorf("Send returned before any receiver arrived")
			return
		}
		if n := ch.Len(); n != 0 {
			t.Errorf("Len of an unbuffered channel with a sender waiting = %d, want 0", n)
		}
		if v, ok := ch.Recv(ctx); v != 7 || !ok {
			t.Errorf("Recv = %v, %v; want 7, true", v, ok)
		}
		if err, _ := h.Await(ctx); err != nil {
			t.Errorf("Send = %v, want nil", err)
		}

		// Receiver first; TrySend meets it.
		got := simrt.Spawn(ctx, func(ctx simrt.Context) int { v, _ := ch.Recv(ctx); return v })
		for !ch.TrySend(8) {
			ctx.Sleep(time.Millisecond) // until the receiver is parked
		}
		if v, _ := got.Await(ctx); v != 8 {
			t.Errorf("receiver got %d, want 8 from TrySend", v)
		}

		// Sender first; TryRecv meets it.
		sender := simrt.Spawn(ctx, func(ctx simrt.Context) error { return ch.Send(ctx, 9) })
		v, ok := ch.TryRecv()
		for ; !ok; v, ok = ch.TryRecv() {
			ctx.Sleep(time.Millisecond)
		}
		if err, _ := sender.Await(ctx); v != 9 || err != nil {
			t.Errorf("TryRecv = %d, sender = %v; want 9, nil", v, err)
		}
	})
}

func unbufferedSelect(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		ch := simrt.NewChan[int](0)
		never := simrt.NewSignal()

		// A receive case meets a plain Send.
		simrt.Spawn(ctx, func(ctx simrt.Context) error {
			ctx.Sleep(time.Millisecond)
			return ch.Send(ctx, 1)
		})
		var got int
		if i := simrt.Select(ctx, never.OnFire(nil), ch.OnRecv(func(v int, _ bool) { got = v })); i != 1 || got != 1 {
			t.Errorf("Select receive = case %d, value %d; want case 1, value 1", i, got)
		}

		// A send case meets a plain Recv.
		recv := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			ctx.Sleep(time.Millisecond)
			v, _ := ch.Recv(ctx)
			return v
		})
		var sendErr error = errors.New("callback not run")
		if i := simrt.Select(ctx, never.OnFire(nil), ch.OnSend(2, func(err error) { sendErr = err })); i != 1 || sendErr != nil {
			t.Errorf("Select send = case %d, err %v; want case 1, nil", i, sendErr)
		}
		if v, _ := recv.Await(ctx); v != 2 {
			t.Errorf("receiver got %d, want 2", v)
		}

		// Both sides in a Select.
		peer := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			var v int
			simrt.Select(ctx, never.OnFire(nil), ch.OnRecv(func(x int, _ bool) { v = x }))
			return v
		})
		ctx.Sleep(time.Millisecond)
		if i := simrt.Select(ctx, ch.OnSend(3, nil), never.OnFire(nil)); i != 0 {
			t.Errorf("Select send to a Select receiving = case %d, want 0", i)
		}
		if v, _ := peer.Await(ctx); v != 3 {
			t.Errorf("receiving Select got %d, want 3", v)
		}

		// A send case that times out delivers nothing.
		if i := simrt.Select(ctx, ch.OnSend(4, nil), simrt.After(ctx, time.Millisecond, nil)); i != 1 {
			t.Errorf("Select send with no receiver = case %d, want the timer (1)", i)
		}
		if v, ok := ch.TryRecv(); ok {
			t.Errorf("a send case that was not chosen left %d behind", v)
		}

		// An earlier ready case wins a biased Select over a waiting
		// partner, which keeps waiting and gets the next value.
		ready := simrt.NewChan[int](1)
		ready.Send(ctx, 5)
		late := simrt.Spawn(ctx, func(ctx simrt.Context) int { v, _ := ch.Recv(ctx); return v })
		ctx.Sleep(time.Millisecond)
		if i := simrt.SelectBiased(ctx, ready.OnRecv(nil), ch.OnSend(6, nil)); i != 0 {
			t.Errorf("Select with a ready buffered case first = case %d, want 0", i)
		}
		if err := ch.Send(ctx, 7); err != nil {
			t.Errorf("Send = %v", err)
		}
		if v, _ := late.Await(ctx); v != 7 {
			t.Errorf("waiting receiver got %d, want 7 (6 was offered by a case not chosen)", v)
		}

		// One Select that both sends and receives on the channel does not
		// meet itself.
		if i := simrt.Select(ctx, ch.OnSend(8, nil), ch.OnRecv(nil), simrt.After(ctx, time.Millisecond, nil)); i != 2 {
			t.Errorf("Select sending and receiving on one channel = case %d, want the timer (2)", i)
		}
	})
}

func unbufferedClose(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		out, in := simrt.NewChan[int](0), simrt.NewChan[int](0)
		hs := simrt.Spawn(ctx, func(ctx simrt.Context) error { return out.Send(ctx, 1) })
		hr := simrt.Spawn(ctx, func(ctx simrt.Context) bool { _, ok := in.Recv(ctx); return ok })
		var selOK atomic.Bool
		selOK.Store(true)
		hsel := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			simrt.Select(ctx, in.OnRecv(func(_ int, ok bool) { selOK.Store(ok) }))
			return struct{}{}
		})
		ctx.Sleep(time.Millisecond)
		out.Close()
		in.Close()
		if err, _ := hs.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("parked Send after Close = %v, want ErrClosed", err)
		}
		if ok, _ := hr.Await(ctx); ok {
			t.Errorf("parked Recv after Close reported ok")
		}
		hsel.Await(ctx)
		if selOK.Load() {
			t.Errorf("parked receive case after Close reported ok")
		}
		if err := out.Send(ctx, 2); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Send after Close = %v, want ErrClosed", err)
		}
		if v, ok := out.Recv(ctx); ok {
			t.Errorf("Recv after Close = %v, true; the undelivered value must not appear", v)
		}
		never := simrt.NewSignal()
		if i := simrt.Select(ctx, never.OnFire(nil), in.OnRecv(nil)); i != 1 {
			t.Errorf("Select on a closed unbuffered channel = case %d, want 1", i)
		}
	})
}

func unbufferedManyPartners(t T, r Runner) {
	const senders, receivers, each = 4, 4, 100
	r.run(t, Options{}, func(ctx simrt.Context) {
		ch := simrt.NewChan[int](0)
		var send []*simrt.Handle[struct{}]
		for s := range senders {
			send = append(send, simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				for i := range each {
					v := s*each + i
					if i%2 == 0 {
						if err := ch.Send(ctx, v); err != nil {
							t.Errorf("Send: %v", err)
						}
						continue
					}
					for simrt.Select(ctx, ch.OnSend(v, nil), simrt.After(ctx, time.Microsecond, nil)) != 0 {
					}
				}
				return struct{}{}
			}))
		}
		var recv []*simrt.Handle[[]int]
		for k := range receivers {
			recv = append(recv, simrt.Spawn(ctx, func(ctx simrt.Context) []int {
				var got []int
				for {
					if k%2 == 0 {
						v, ok := ch.Recv(ctx)
						if !ok {
							return got
						}
						got = append(got, v)
						continue
					}
					open := true
					simrt.Select(ctx,
						ch.OnRecv(func(v int, ok bool) {
							if open = ok; ok {
								got = append(got, v)
							}
						}),
						simrt.After(ctx, time.Microsecond, nil))
					if !open {
						return got
					}
				}
			}))
		}
		for _, h := range send {
			h.Await(ctx)
		}
		ch.Close()
		var all []int
		for _, h := range recv {
			got, _ := h.Await(ctx)
			all = append(all, got...)
		}
		slices.Sort(all)
		if len(all) != senders*each {
			t.Errorf("received %d values, want %d", len(all), senders*each)
			return
		}
		for i, v := range all {
			if v != i {
				t.Errorf("value %d missing or duplicated (sorted values: ...%v...)", i, all[max(0, i-2):min(len(all), i+3)])
				return
			}
		}
	})
}
