package plainmod

import (
	"runtime"
	"testing"
)

func TestPingPong(t *testing.T) {
	if got := PingPong(10); got != 55 {
		t.Fatalf("sum %d, want 55", got)
	}
}

func TestRace(t *testing.T) {
	got := Race()
	if len(got) != 6 {
		t.Fatalf("got %v", got)
	}
	t.Logf("order %v", got)
}

func TestSelectDefault(t *testing.T) {
	ch := make(chan int, 1)
	if _, ok := TryRecv(ch); ok {
		t.Fatal("received from an empty channel")
	}
	ch <- 7
	if v, ok := TryRecv(ch); !ok || v != 7 {
		t.Fatalf("got %d %v", v, ok)
	}
}

func TestLabelledBreak(t *testing.T) {
	in, quit := make(chan int), make(chan struct{})
	result := make(chan int)
	go func() { result <- Drain(in, quit) }()
	for i := 0; i < 3; i++ {
		in <- i
	}
	close(in)
	runtime.Gosched()
	close(quit)
	if n := <-result; n != 3 {
		t.Fatalf("drained %d, want 3", n)
	}
}

func TestBuffered(t *testing.T) {
	if got := Buffered(10); got != 55 {
		t.Fatalf("sum %d, want 55", got)
	}
}

// TestDeadlock deadlocks: each side waits for the other first.
func TestDeadlock(t *testing.T) {
	a, b := make(chan int), make(chan int)
	go func() {
		<-a
		b <- 1
	}()
	<-b
	a <- 1
}

// TestLeak returns while the goroutine it started is blocked forever.
func TestLeak(t *testing.T) {
	ch := make(chan int)
	go func() {
		ch <- 1
	}()
}

// TestManyChannels parks tasks on more channels than the hooks' table
// holds before it sweeps idle entries (64), while others stay parked.
func TestManyChannels(t *testing.T) {
	const n = 200
	chans := make([]chan int, n)
	done := make(chan int)
	for i := range chans {
		chans[i] = make(chan int)
		go func(ch chan int) { done <- <-ch }(chans[i])
	}
	sum := 0
	for i, ch := range chans {
		ch <- i
		if i%2 == 1 { // let half the receivers wait while new channels come
			sum += <-done
			sum += <-done
		}
	}
	if sum != n*(n-1)/2 {
		t.Fatalf("sum %d, want %d", sum, n*(n-1)/2)
	}
}
