package plainstd

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestBankMutexInStruct(t *testing.T) {
	b := NewBank(map[string]int{"a": 100, "b": 100, "c": 100})
	Run(b, 12)
	if got := b.Total(); got != 300 {
		t.Fatalf("total %d, want 300", got)
	}
	if n := len(b.Log()); n != 12 {
		t.Fatalf("%d transfers logged, want 12", n)
	}
	t.Logf("order %v", b.Log())
}

func TestSleepIsExact(t *testing.T) {
	t0 := time.Now()
	time.Sleep(100 * time.Millisecond)
	if d := time.Since(t0); d != 100*time.Millisecond {
		t.Fatalf("Sleep(100ms) took %v", d)
	}
}

func TestCond(t *testing.T) {
	var q Queue
	q.cond.L = &q.mu
	var wg sync.WaitGroup
	sum := 0
	var mu sync.Mutex
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := q.Get()
			mu.Lock()
			sum += v
			mu.Unlock()
		}()
	}
	for i := 1; i <= 3; i++ {
		time.Sleep(time.Millisecond)
		q.Put(i)
	}
	wg.Wait()
	if sum != 6 {
		t.Fatalf("sum %d, want 6", sum)
	}
}

func TestContextTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if v, err := Slow(ctx, 10*time.Millisecond, 7); v != 7 || err != nil {
		t.Fatalf("fast call: %d, %v", v, err)
	}
	if _, err := Slow(ctx, time.Second, 8); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow call: %v", err)
	}
	if d := time.Since(t0); d != 50*time.Millisecond {
		t.Fatalf("deadline came after %v, want exactly 50ms", d)
	}
}

func TestAfterFuncAndTicker(t *testing.T) {
	done := make(chan time.Duration)
	t0 := time.Now()
	time.AfterFunc(30*time.Millisecond, func() { done <- time.Since(t0) })
	tk := time.NewTicker(10 * time.Millisecond)
	ticks := 0
	for ticks < 2 {
		<-tk.C
		ticks++
	}
	tk.Stop()
	if d := <-done; d != 30*time.Millisecond {
		t.Fatalf("AfterFunc ran after %v", d)
	}
	timer := time.NewTimer(time.Hour)
	if !timer.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	select {
	case <-timer.C:
		t.Fatal("a stopped timer fired")
	case <-time.After(2 * time.Hour):
	}
}
