package metrics

import (
	"sync"
	"testing"
)

// TestTaskPollsFoldKeepsEveryCount: counters tracked by one series and
// folded in an order other than the one they were tracked in (which moves
// slots) are each counted once, in PollCount before and after the fold,
// and a folded counter tracked again counts from zero.
func TestTaskPollsFoldKeepsEveryCount(t *testing.T) {
	l := &TaskLabel{}
	l.Polls.Add(5) // counted directly
	ps := make([]*TaskPolls, 6)
	for i := range ps {
		ps[i] = &TaskPolls{}
		ps[i].Track(l)
		for range i + 1 {
			ps[i].Inc()
		}
	}
	want := uint64(5 + 1 + 2 + 3 + 4 + 5 + 6)
	for _, i := range []int{2, 5, 0, 4, 1, 3} {
		if got := l.PollCount(); got != want {
			t.Fatalf("before folding counter %d: PollCount = %d, want %d", i, got, want)
		}
		ps[i].Fold(l)
		ps[i].Fold(l) // a second fold does nothing
		if ps[i].slot != 0 {
			t.Errorf("counter %d still tracked after Fold", i)
		}
	}
	if got := l.PollCount(); got != want || len(l.live) != 0 || l.Polls.Load() != want {
		t.Errorf("after every fold: PollCount %d, Polls %d, %d live; want %d, %d, 0", got, l.Polls.Load(), len(l.live), want, want)
	}
	ps[0].Track(l)
	ps[0].Inc()
	if got := l.PollCount(); got != want+1 {
		t.Errorf("a folded counter tracked again: PollCount = %d, want %d", got, want+1)
	}
}

// TestTaskPollsConcurrentScrapes: goroutines each counting in their own
// TaskPolls, tracked and folded over and over, while scrapes read the
// series: the count never goes down and ends exact. Run it with -race.
func TestTaskPollsConcurrentScrapes(t *testing.T) {
	const workers, rounds, incs = 4, 50, 40
	l := &TaskLabel{}
	stop := make(chan struct{})
	var scraper sync.WaitGroup
	scraper.Go(func() {
		last := uint64(0)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n := l.PollCount()
			if n < last {
				t.Errorf("PollCount went %d -> %d", last, n)
				return
			}
			last = n
		}
	})
	var ws sync.WaitGroup
	for range workers {
		ws.Go(func() {
			var p TaskPolls
			for range rounds {
				p.Track(l)
				for range incs {
					p.Inc()
				}
				p.Fold(l)
			}
		})
	}
	ws.Wait()
	close(stop)
	scraper.Wait()
	if got, want := l.PollCount(), uint64(workers*rounds*incs); got != want {
		t.Errorf("PollCount = %d, want %d", got, want)
	}
}
