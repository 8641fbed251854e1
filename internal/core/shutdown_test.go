package core_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
)

type shutdown = core.Shutdown[simrt.Signal, *simrt.Signal]

func TestShutdownWithoutHoldersDrainsAtOnce(t *testing.T) {
	var s shutdown
	drained := s.Stop(3)
	if _, ok := drained.Fired(); !ok {
		t.Fatal("Stop with no holder: drained has not fired")
	}
	if again := s.Stop(4); again != drained {
		t.Fatal("a second Stop returned another event")
	}
	late := (*simrt.StopSignal)(s.Stopped(nil))
	if v, ok := late.Fired(); !ok || v != 3 {
		t.Fatalf("a signal taken after Stop: Fired() = %d, %v; want 3 (the first value), true", v, ok)
	}
	late.Release() // holds nothing: must not count
	if _, ok := drained.Fired(); !ok {
		t.Fatal("drained un-fired")
	}
}

func TestShutdownWaitsForEveryHolder(t *testing.T) {
	var s shutdown
	task := core.NewTask(nil)
	byTask := s.Stopped(task)
	byHand := (*simrt.StopSignal)(s.Stopped(nil))
	drained := s.Stop(9)
	if v, ok := byHand.Fired(); !ok || v != 9 {
		t.Fatalf("a held signal after Stop: Fired() = %d, %v; want 9, true", v, ok)
	}
	if _, ok := drained.Fired(); ok {
		t.Fatal("drained fired with two holders left")
	}
	byHand.Release()
	byHand.Release() // a second Release does not count again
	if _, ok := drained.Fired(); ok {
		t.Fatal("drained fired with the task's holder left")
	}
	task.RunExitHooks() // the task ends: its signal is released
	if _, ok := drained.Fired(); !ok {
		t.Fatal("drained has not fired once every holder released")
	}
	if v, ok := byTask.Event().Fired(); !ok || v != 9 {
		t.Fatalf("the task's signal: Fired() = %d, %v; want 9, true", v, ok)
	}
}
