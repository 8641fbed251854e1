package realtime

import (
	"io"
	"sync"
)

// closers is a set of open I/O resources that must be interrupted or
// closed to unblock a goroutine stuck in them: those a task opened
// (interrupted when the task is aborted, which for a connection or a
// listener cuts only the calls of goroutines that are no task's, see conn)
// and those of the whole runtime (closed at shutdown). The zero value is
// an empty, open set.
type closers struct {
	mu struct {
		sync.Mutex
		state closersState
		set   map[io.Closer]struct{}
	}
}

type closersState uint8

const (
	closersOpen        closersState = iota
	closersForgotten                // the task ended normally: stop tracking
	closersInterrupted              // aborted: interrupt on sight, close at shutdown
	closersClosed                   // shut down: close on sight
)

// interrupt unblocks c: through Interrupt when c has it, which is safe while
// another goroutine is inside c, else by closing it.
func interrupt(c io.Closer) {
	if i, ok := c.(interrupter); ok {
		i.Interrupt()
		return
	}
	c.Close()
}

// add tracks c. If the set was already closed, c is closed at once.
func (s *closers) add(c io.Closer) {
	s.mu.Lock()
	switch s.mu.state {
	case closersOpen:
		if s.mu.set == nil {
			s.mu.set = make(map[io.Closer]struct{})
		}
		s.mu.set[c] = struct{}{}
		s.mu.Unlock()
	case closersForgotten:
		s.mu.Unlock()
	case closersInterrupted:
		if s.mu.set == nil { // an aborted task that has ended (forget)
			s.mu.set = make(map[io.Closer]struct{})
		}
		s.mu.set[c] = struct{}{} // still closed at shutdown
		s.mu.Unlock()
		interrupt(c)
	case closersClosed:
		s.mu.Unlock()
		c.Close()
	}
}

// addLive tracks c if the set is open (its task runs and has not been
// aborted); otherwise it does nothing.
func (s *closers) addLive(c io.Closer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.state != closersOpen {
		return
	}
	if s.mu.set == nil {
		s.mu.set = make(map[io.Closer]struct{})
	}
	s.mu.set[c] = struct{}{}
}

// interruptAll unblocks every tracked resource, and every one added later,
// and keeps tracking them so that closeAll can close them once nobody uses
// them. An aborted task's I/O is interrupted, not closed: another task may
// still be inside it, and closing would race with that call.
func (s *closers) interruptAll() {
	s.mu.Lock()
	if s.mu.state != closersOpen {
		s.mu.Unlock()
		return
	}
	s.mu.state = closersInterrupted
	if s.mu.set == nil {
		s.mu.set = make(map[io.Closer]struct{})
	}
	set := make([]io.Closer, 0, len(s.mu.set))
	for c := range s.mu.set {
		set = append(set, c)
	}
	s.mu.Unlock()
	for _, c := range set {
		interrupt(c)
	}
}

// remove stops tracking c (its owner closed it).
func (s *closers) remove(c io.Closer) {
	s.mu.Lock()
	delete(s.mu.set, c)
	s.mu.Unlock()
}

// closeAll closes every tracked resource, and every one added later. Call
// it only when no goroutine can be inside them (after every task ended).
func (s *closers) closeAll() {
	s.mu.Lock()
	set := s.mu.set
	s.mu.set = nil
	s.mu.state = closersClosed
	s.mu.Unlock()
	for c := range set {
		c.Close()
	}
}

// forget drops every tracked resource without closing it; later adds are
// ignored. A task that ends normally leaves its I/O to whoever holds it.
func (s *closers) forget() {
	s.mu.Lock()
	if s.mu.state == closersOpen {
		s.mu.state = closersForgotten
	}
	s.mu.set = nil
	s.mu.Unlock()
}
