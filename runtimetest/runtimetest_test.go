package runtimetest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/runtimetest"
	"github.com/simrt/simrt/suite"
)

// A runtime that never runs its root task fails the suite, through the
// error-returning form, naming the cases it breaks.
func TestBrokenRuntimeFails(t *testing.T) {
	broken := suite.Runtime{
		TimedOut: errors.New("timed out"),
		Run:      func(suite.T, suite.Options, func(simrt.Context)) {},
	}
	err := runtimetest.Test(broken)
	if err == nil {
		t.Fatal("Test passed a runtime that runs nothing")
	}
	if msg := err.Error(); !strings.Contains(msg, "RunTimeout:") || !strings.Contains(msg, "rule: ") {
		t.Errorf("the failures do not name RunTimeout and its rule:\n%.2000s", msg)
	}
}
