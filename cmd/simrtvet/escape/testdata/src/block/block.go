package block

import (
	crand "crypto/rand"
	"io"
	oldrand "math/rand"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/simrt/simrt"
)

type guarded struct {
	sync.Mutex
	n int
}

func blocking(ctx simrt.Context, c chan int, g *guarded) {
	go func() {}() // want `go statement: a native goroutine runs outside the simulator`
	c <- 1         // want `native channel send`
	<-c            // want `native channel receive`
	v, ok := <-c   // want `native channel receive`
	_, _ = v, ok
	for range c { // want `range over a native channel`
	}
	select { // want `native select`
	case <-c: // want `native channel receive`
	default:
	}
	close(c)

	var mu sync.Mutex
	mu.Lock() // want `sync.Mutex.Lock blocks outside the simulator; use simrt.Mutex`
	mu.Unlock()
	g.Lock() // want `sync.Mutex.Lock blocks`
	g.Unlock()
	var rw sync.RWMutex
	rw.RLock() // want `sync.RWMutex.RLock blocks`
	rw.RUnlock()
	var wg sync.WaitGroup
	wg.Go(func() {}) // want `sync.WaitGroup.Go starts a native goroutine`
	wg.Wait()        // want `sync.WaitGroup.Wait blocks`
	var once sync.Once
	once.Do(func() {})
	runtime.Gosched() // want `runtime.Gosched yields to the Go scheduler`

	_ = rand.IntN(10)    // want `rand.IntN draws from the global, unseeded generator; use ctx.Rand\(\)`
	_ = oldrand.Intn(10) // want `rand.Intn draws from the global`
	r := rand.New(rand.NewPCG(1, 2))
	_ = r.IntN(10)
	b := make([]byte, 8)
	crand.Read(b)                // want `rand.Read reads unseeded randomness`
	io.ReadFull(crand.Reader, b) // want `crypto/rand.Reader is unseeded randomness`
	_ = ctx
}
