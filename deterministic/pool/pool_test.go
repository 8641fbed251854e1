package pool

import "testing"

type held struct{ closed int }

func (h *held) Close() { h.closed++ }

// A pool hands back what the last run put in, once, and refuses a second
// taker while a run holds it.
func TestTakeGivesBackWhatWasPut(t *testing.T) {
	var p Coroutines
	if h := p.Take(); h != nil {
		t.Fatalf("an empty pool gave %v", h)
	}
	h := &held{}
	p.Put(h)
	if got := p.Take(); got != h {
		t.Fatalf("Take = %v, want what Put left", got)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a second Take while in use did not panic")
			}
		}()
		p.Take()
	}()
	p.Put(h)
	p.Close()
	p.Close()
	if h.closed != 1 {
		t.Errorf("Close closed the held coroutines %d times, want 1", h.closed)
	}
	if got := p.Take(); got != nil {
		t.Errorf("after Close the pool gave %v", got)
	}
}
