// Package plainstd is plain Go that uses sync, time, context and
// randomness as Go programmers do, for simrt's plain-Go tests.
package plainstd

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// Bank guards its balances with a sync.Mutex field, unchanged Go.
type Bank struct {
	mu       sync.Mutex
	balances map[string]int
	log      []string
}

// NewBank returns a bank with the given accounts.
func NewBank(accounts map[string]int) *Bank {
	return &Bank{balances: accounts}
}

// Transfer moves n from a to b, sleeping while it holds the lock to give
// other goroutines a chance to contend.
func (b *Bank) Transfer(a, to string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.balances[a] -= n
	time.Sleep(time.Millisecond)
	b.balances[to] += n
	b.log = append(b.log, a+">"+to)
}

// Total sums the balances.
func (b *Bank) Total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := 0
	for _, v := range b.balances {
		t += v
	}
	return t
}

// Log returns the transfers in the order they happened.
func (b *Bank) Log() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.log...)
}

// Run starts n goroutines, each making transfers, and waits for them.
func Run(b *Bank, n int) {
	var wg sync.WaitGroup
	names := []string{"a", "b", "c"}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.Transfer(names[i%3], names[(i+1)%3], 1+rand.IntN(5))
		}()
	}
	wg.Wait()
}

// Queue is a one-slot queue built on sync.Cond.
type Queue struct {
	mu    sync.Mutex
	cond  sync.Cond
	items []int
}

// Put adds v and wakes a waiting Get.
func (q *Queue) Put(v int) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.cond.Signal()
}

// Get waits for an item.
func (q *Queue) Get() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cond.L == nil {
		q.cond.L = &q.mu
	}
	for len(q.items) == 0 {
		q.cond.Wait()
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v
}

// Slow returns v after d, unless ctx ends first.
func Slow(ctx context.Context, d time.Duration, v int) (int, error) {
	select {
	case <-time.After(d):
		return v, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
