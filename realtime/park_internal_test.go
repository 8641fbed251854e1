package realtime

import (
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// inRuntime runs root as the root task of a production runtime.
func inRuntime(root func(ctx simrt.Context)) { New(Config{}).Start(root) }

// TestUnparkBeforeParkIsKept: an Unpark that comes while the task runs
// makes its next Park return at once, without sleeping (no poll counted),
// and only that one.
func TestUnparkBeforeParkIsKept(t *testing.T) {
	inRuntime(func(ctx simrt.Context) {
		me := From(ctx).task
		ct := ctx.CurrentTask()
		polls := me.label().PollCount()
		ct.Unpark()
		ct.Unpark() // a permit does not count past one
		ct.Park()
		if got := me.io.Load().permit.Load(); got != permitNone {
			t.Errorf("permit after the Park = %d, want permitNone", got)
		}
		if got := me.label().PollCount(); got != polls {
			t.Errorf("polls went %d -> %d for a Park that did not sleep", polls, got)
		}
		woke := make(chan struct{})
		go func() {
			for me.io.Load().permit.Load() <= permitReady {
				time.Sleep(time.Millisecond) // until the Park below sleeps
			}
			close(woke)
			ct.Unpark()
		}()
		ct.Park() // sleeps: the second Unpark above was not kept
		<-woke
		if got := me.label().PollCount(); got != polls+1 {
			t.Errorf("polls went %d -> %d for one sleep", polls, got)
		}
	})
}

// TestParkUnparkRoundTrips hands a turn back and forth between two tasks
// with Park and Unpark many times while a third goroutine wakes both at
// random (spurious wakes, which Park's callers tolerate): no wake is lost
// (the test would hang; the watchdog fails it instead) and no goroutine is
// woken twice for one sleep (the Go runtime would abort the process).
func TestParkUnparkRoundTrips(t *testing.T) {
	const rounds = 20000
	watchdog := time.AfterFunc(time.Minute, func() { panic("TestParkUnparkRoundTrips: a wake was lost") })
	defer watchdog.Stop()
	inRuntime(func(ctx simrt.Context) {
		me := ctx.CurrentTask()
		var turn atomic.Int64 // odd: the partner's turn
		partnerTask := make(chan *task, 1)
		h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			p := ctx.CurrentTask()
			partnerTask <- From(ctx).task
			for i := int64(1); i < 2*rounds; i += 2 {
				for turn.Load() != i {
					p.Park()
				}
				turn.Add(1)
				me.Unpark()
			}
			return 0
		})
		partner := <-partnerTask
		stopNoise := spuriousWakes(me, partner)
		for i := int64(0); i < 2*rounds; i += 2 {
			turn.Add(1)
			partner.Unpark()
			for turn.Load() != i+2 {
				me.Park()
			}
		}
		stopNoise()
		if _, err := h.Await(ctx); err != nil {
			t.Error(err)
		}
	})
}

// TestTwoGoroutinesParkingOneTaskPanics: a goroutine that blocks through
// the context of a task whose goroutine is asleep in Park panics, naming
// the task, and the sleeping task is not disturbed.
func TestTwoGoroutinesParkingOneTaskPanics(t *testing.T) {
	inRuntime(func(ctx simrt.Context) {
		me := From(ctx).task
		ct := ctx.CurrentTask()
		var got any
		go func() {
			for me.io.Load().permit.Load() <= permitReady {
				time.Sleep(time.Millisecond) // until the root sleeps
			}
			func() {
				defer func() { got = recover() }()
				ct.Park()
			}()
			ct.Unpark()
		}()
		ct.Park()
		if s, _ := got.(string); !strings.Contains(s, "two goroutines blocked through the context of task") {
			t.Errorf("the second Park panicked with %v", got)
		}
	})
}

// TestPollCountExactUnderScrapes: tasks that sleep many times count their
// polls in their own counters (see countPoll) while a scraper reads the
// series concurrently: every scrape is at most the final count and never
// below the one before; with every task asleep halfway, and once the tasks
// have ended, the series counts every poll exactly once (the first poll of
// each and each sleep), in PollCount and, at the end, in the text a scrape
// encodes. Run it with -race.
func TestPollCountExactUnderScrapes(t *testing.T) {
	const tasks, sleeps = 4, 300
	inRuntime(func(ctx simrt.Context) {
		started := make(chan *task, tasks)
		var hs []*simrt.Handle[int]
		for range tasks {
			hs = append(hs, simrt.Spawn(ctx.Child("pollers"), func(ctx simrt.Context) int {
				started <- From(ctx).task
				for range sleeps {
					ctx.CurrentTask().Park() // woken only once asleep: each Park sleeps
				}
				return 0
			}))
		}
		ts := make([]*task, tasks)
		for i := range ts {
			ts[i] = <-started
		}
		label := ts[0].label()
		want := uint64(tasks * (sleeps + 1))

		stop := make(chan struct{})
		var scrapes sync.WaitGroup
		var bad atomic.Value
		scrapes.Go(func() {
			last := uint64(0)
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := label.PollCount()
				if n < last || n > want {
					bad.Store(fmt.Sprintf("scrape read %d after %d (final %d)", n, last, want))
				}
				last = n
			}
		})
		asleep := func(pt *task) bool { return pt.io.Load() != nil && pt.io.Load().permit.Load() > permitReady }
		wake := func(n int) {
			var wakes sync.WaitGroup
			for _, pt := range ts {
				wakes.Go(func() {
					for range n {
						for !asleep(pt) {
							goruntime.Gosched() // until it sleeps
						}
						pt.Unpark()
					}
				})
			}
			wakes.Wait()
		}
		wake(sleeps / 2)
		for _, pt := range ts {
			for !asleep(pt) {
				goruntime.Gosched()
			}
		}
		if got, mid := label.PollCount(), uint64(tasks*(sleeps/2+1)); got != mid {
			t.Errorf("polls with every task asleep after %d wakes = %d, want %d", sleeps/2, got, mid)
		}
		wake(sleeps - sleeps/2)
		for _, h := range hs {
			if _, err := h.Await(ctx); err != nil {
				t.Error(err)
			}
		}
		close(stop)
		scrapes.Wait()
		if msg := bad.Load(); msg != nil {
			t.Error(msg)
		}
		if got := label.PollCount(); got != want {
			t.Errorf("polls after the tasks ended = %d, want %d", got, want)
		}
		line := fmt.Sprintf(`runtime_task_polls_total{execution="Shared",kind="Task",name="pollers"} %d`, want)
		if text := ctx.Encode(); !strings.Contains(text, line) {
			t.Errorf("the encoded metrics lack %s:\n%s", line, text)
		}
	})
}

// TestChanHopsUnderSpuriousWakes passes numbered values back and forth
// between two tasks over two channels, buffered (capacity 1) and
// unbuffered, with plain Send and Recv, while a third goroutine wakes both
// tasks at random: a task woken before its partner has completed its
// waiter looks again under the channel's lock (see simrt's parkPlain), so
// every value arrives exactly once and in order, and no wake is lost (the
// test would hang; the watchdog fails it instead).
func TestChanHopsUnderSpuriousWakes(t *testing.T) {
	const rounds = 20000
	for _, capacity := range []int{1, 0} {
		t.Run(fmt.Sprintf("capacity=%d", capacity), func(t *testing.T) {
			watchdog := time.AfterFunc(time.Minute, func() { panic("TestChanHopsUnderSpuriousWakes: a wake was lost") })
			defer watchdog.Stop()
			inRuntime(func(ctx simrt.Context) {
				ping, pong := simrt.NewChan[int](capacity), simrt.NewChan[int](capacity)
				partnerTask := make(chan *task, 1)
				h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
					partnerTask <- From(ctx).task
					for v, ok := ping.Recv(ctx); ok; v, ok = ping.Recv(ctx) {
						if err := pong.Send(ctx, v+1); err != nil {
							return -1
						}
					}
					return 0
				})
				partner, me := <-partnerTask, From(ctx).task
				stopNoise := spuriousWakes(me, partner)
				for i := 0; i < 2*rounds; i += 2 {
					if err := ping.Send(ctx, i); err != nil {
						t.Fatalf("Send %d: %v", i, err)
					}
					if v, ok := pong.Recv(ctx); v != i+1 || !ok {
						t.Fatalf("round %d: Recv = %d, %v; want %d, true", i/2, v, ok, i+1)
					}
				}
				stopNoise()
				ping.Close()
				if v, err := h.Await(ctx); v != 0 || err != nil {
					t.Errorf("partner returned %d, %v", v, err)
				}
			})
		})
	}
}

// spuriousWakes unparks both tasks over and over from a goroutine of its
// own, as stray wake-ups would, until the returned function is called; that
// function returns once the goroutine has stopped.
func spuriousWakes(a, b interface{ Unpark() }) (stop func()) {
	done := make(chan struct{})
	var noise sync.WaitGroup
	noise.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				a.Unpark()
				b.Unpark()
			}
		}
	})
	return func() { close(done); noise.Wait() }
}
