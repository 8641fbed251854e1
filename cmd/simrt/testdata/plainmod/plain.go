// Package plainmod is plain Go, written with no thought of simrt:
// goroutines, channels and select, for the end-to-end tests of
// `simrt test` (cmd/simrt/plain_test.go).
package plainmod

// PingPong bounces n values between two goroutines over unbuffered
// channels and returns the sum of the replies.
func PingPong(n int) int {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	sum := 0
	for i := 0; i < n; i++ {
		ping <- i
		sum += <-pong
	}
	close(ping)
	if _, ok := <-pong; ok {
		panic("pong not closed")
	}
	return sum
}

// Race has three producers send two values each on one unbuffered
// channel; the order of arrival is the scheduler's choice.
func Race() []int {
	ch := make(chan int)
	done := make(chan struct{})
	for p := 0; p < 3; p++ {
		go func(p int) {
			for i := 0; i < 2; i++ {
				ch <- p*10 + i
			}
			done <- struct{}{}
		}(p)
	}
	var got []int
	for finished := 0; finished < 3; {
		select {
		case v := <-ch:
			got = append(got, v)
		case <-done:
			finished++
		}
	}
	return got
}

// TryRecv receives from ch if a value is there.
func TryRecv(ch chan int) (int, bool) {
	select {
	case v := <-ch:
		return v, true
	default:
		return 0, false
	}
}

// Drain receives from in until quit is closed, breaking out of its loop
// from inside the select by its label, and returns how many it received.
func Drain(in <-chan int, quit <-chan struct{}) (n int) {
loop:
	for {
		select {
		case _, ok := <-in:
			if !ok {
				in = nil // a nil channel is never ready
				continue
			}
			n++
		case <-quit:
			break loop
		}
	}
	return n
}

// Buffered sends n values into a buffered channel from a goroutine that
// closes it, and sums them with range.
func Buffered(n int) int {
	ch := make(chan int, 2)
	go func() {
		defer close(ch)
		for i := 1; i <= n; i++ {
			ch <- i
		}
	}()
	sum := 0
	for v := range ch {
		sum += v
	}
	return sum
}
