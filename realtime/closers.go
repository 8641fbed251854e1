package realtime

import (
	"io"
	"sync"
)

// closers is a set of open I/O resources that must be closed to unblock a
// goroutine stuck in them: those a task opened (closed when the task is
// aborted) and those of the whole runtime (closed at shutdown). The zero
// value is an empty, open set.
type closers struct {
	mu struct {
		sync.Mutex
		state closersState
		set   map[io.Closer]struct{}
	}
}

type closersState uint8

const (
	closersOpen      closersState = iota
	closersForgotten              // the task ended normally: stop tracking
	closersClosed                 // aborted or shut down: close on sight
)

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
	case closersClosed:
		s.mu.Unlock()
		c.Close()
	}
}

// remove stops tracking c (its owner closed it).
func (s *closers) remove(c io.Closer) {
	s.mu.Lock()
	delete(s.mu.set, c)
	s.mu.Unlock()
}

// closeAll closes every tracked resource, and every one added later.
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
