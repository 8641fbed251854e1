package simrt

import (
	"strings"
	"testing"
)

// A report calls a bounded channel full only when it is: a sender parked
// on a channel with room (a lost wake-up) is described with what the
// channel holds, so the report does not hide the defect behind "full".
func TestChanSendReportSaysWhetherFull(t *testing.T) {
	c := NewChan[int](2)
	c.push(1)
	if got := (*chanSend[int])(c).BlockedOn(); strings.Contains(got, "full") || !strings.HasSuffix(got, "(capacity 2), 1 queued, has room") {
		t.Errorf("one of two slots taken: %q; want it to end in \"(capacity 2), 1 queued, has room\"", got)
	}
	c.push(2)
	if got := (*chanSend[int])(c).BlockedOn(); !strings.HasSuffix(got, "(capacity 2), full") {
		t.Errorf("both slots taken: %q; want it to end in \"(capacity 2), full\"", got)
	}
	u := NewChan[int](0)
	if got := (*chanSend[int])(u).BlockedOn(); strings.Contains(got, "full") || strings.Contains(got, "room") {
		t.Errorf("unbuffered: %q; want neither full nor room (it waits for a receiver)", got)
	}
}
