package sweep

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// busy does work that depends on seed, so that workers end out of order.
func busy(seed uint64) uint64 {
	x := seed
	for range (seed * 7919) % 5000 {
		x = x*6364136223846793005 + 1442695040888963407
	}
	if seed%3 == 0 {
		runtime.Gosched()
	}
	return x
}

// failing is the body of the tests: it fails the seeds 3, 10, 17, ...
func failing(_ *Worker, seed uint64) (uint64, error) {
	v := busy(seed)
	if seed%7 == 3 {
		return v, fmt.Errorf("seed %d fails", seed)
	}
	return v, nil
}

// collect runs cfg with failing and returns the report and what
// OnResult and OnFailure saw.
func collect(t *testing.T, cfg Config[uint64]) (*Report[uint64], []Result[uint64], []uint64) {
	t.Helper()
	var results []Result[uint64]
	var failures []uint64
	cfg.OnResult = func(r Result[uint64]) { results = append(results, r) }
	cfg.OnFailure = func(r Result[uint64]) { failures = append(failures, r.Seed) }
	rep, err := Run(cfg, failing)
	if err != nil {
		t.Fatal(err)
	}
	return rep, results, failures
}

// summary renders what a sweep reported, for comparison.
func summary(rep *Report[uint64], results []Result[uint64], failures []uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "selected %d ran %d stopped %v failing %v callbacks %v\n", rep.Selected, rep.Ran, rep.Stopped, rep.FailingSeeds(), failures)
	for _, r := range results {
		fmt.Fprintf(&b, "%d@%d=%d %v\n", r.Seed, r.Index, r.Value, r.Err)
	}
	return b.String()
}

func TestSameResultsForAnyWorkerCount(t *testing.T) {
	set, _ := Parse("0..299,1000..1099")
	for _, keepGoing := range []bool{true, false} {
		want := ""
		for _, workers := range []int{1, 4, 1, 4, 7} {
			got := summary(collect(t, Config[uint64]{Seeds: set, Workers: workers, KeepGoing: keepGoing}))
			if want == "" {
				want = got
				continue
			}
			if got != want {
				t.Fatalf("keepgoing %v: workers %d reported\n%s\nworkers 1 reported\n%s", keepGoing, workers, got, want)
			}
		}
		if keepGoing && !strings.HasPrefix(want, "selected 400 ran 400 stopped false") {
			t.Errorf("keepgoing: %s", want[:strings.IndexByte(want, '\n')])
		}
		if !keepGoing && !strings.HasPrefix(want, "selected 400 ran 4 stopped true failing 3 callbacks [3]") {
			t.Errorf("stop at first: %s", want[:strings.IndexByte(want, '\n')])
		}
	}
}

func TestResultsInSeedOrder(t *testing.T) {
	set, _ := Parse("50..99,0..49,7")
	_, results, _ := collect(t, Config[uint64]{Seeds: set, Workers: 4, KeepGoing: true})
	want := slices.Collect(Shard{}.Pick(set))
	var got []uint64
	for i, r := range results {
		if r.Index != uint64(i) {
			t.Fatalf("result %d has index %d", i, r.Index)
		}
		got = append(got, r.Seed)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("OnResult saw seeds %v, want %v", got, want)
	}
}

func TestShardUnionIsTheWhole(t *testing.T) {
	set, _ := Parse("0..99,500..533,7")
	_, whole, _ := collect(t, Config[uint64]{Seeds: set, Workers: 3, KeepGoing: true})
	for n := uint64(1); n <= 5; n++ {
		var union []Result[uint64]
		for i := range n {
			_, part, _ := collect(t, Config[uint64]{Seeds: set, Shard: Shard{I: i, N: n}, Workers: 3, KeepGoing: true})
			for k, r := range part {
				if r.Index != uint64(k) {
					t.Fatalf("shard %d/%d: result %d has index %d", i, n, k, r.Index)
				}
				r.Index = i + uint64(k)*n // its position in the whole
				union = append(union, r)
			}
		}
		slices.SortFunc(union, func(a, b Result[uint64]) int { return int(a.Index) - int(b.Index) })
		if fmt.Sprint(union) != fmt.Sprint(whole) {
			t.Fatalf("%d shards together reported\n%v\nthe whole reported\n%v", n, union, whole)
		}
	}
}

func TestFailuresInSeedOrder(t *testing.T) {
	set, _ := Parse("0..199")
	var want []uint64
	for s := range uint64(200) {
		if s%7 == 3 {
			want = append(want, s)
		}
	}
	for _, workers := range []int{1, 2, 4} {
		rep, _, failures := collect(t, Config[uint64]{Seeds: set, Workers: workers, KeepGoing: true})
		if !slices.Equal(failures, want) {
			t.Errorf("workers %d: OnFailure saw %v, want %v", workers, failures, want)
		}
		if got := rep.FailingSeeds().String(); got != Compact(want).String() {
			t.Errorf("workers %d: FailingSeeds %s", workers, got)
		}
	}
}

func TestGCSettingRestored(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	current := func() int {
		v := debug.SetGCPercent(-1)
		debug.SetGCPercent(v)
		return v
	}
	set, _ := Parse("0..9")
	run := func(gc int) []int {
		var seen []int
		_, err := Run(Config[int]{Seeds: set, Workers: 1, GCPercent: gc, OnResult: func(r Result[int]) { seen = append(seen, r.Value) }},
			func(*Worker, uint64) (int, error) { return current(), nil })
		if err != nil {
			t.Fatal(err)
		}
		return slices.Compact(seen)
	}
	if got := run(333); !slices.Equal(got, []int{333}) {
		t.Errorf("GCPercent 333: the body saw %v", got)
	}
	if got := current(); got != 150 {
		t.Errorf("after the sweep the GC percent is %d, want 150 restored", got)
	}
	if got := run(0); !slices.Equal(got, []int{150}) {
		t.Errorf("GCPercent 0: the body saw %v, want 150 left alone", got)
	}
	t.Setenv("GOGC", "150")
	if got := run(333); !slices.Equal(got, []int{150}) {
		t.Errorf("GOGC set: the body saw %v, want the setting left alone", got)
	}
}

func TestPanicFailsItsSeed(t *testing.T) {
	set, _ := Parse("0..19")
	rep, err := Run(Config[int]{Seeds: set, Workers: 2, KeepGoing: true}, func(w *Worker, seed uint64) (int, error) {
		if seed == 5 || seed == 12 {
			panic(fmt.Sprintf("planted %d", seed))
		}
		return int(seed), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 20 || rep.FailingSeeds().String() != "5,12" {
		t.Fatalf("ran %d, failing %v; want 20 and 5,12", rep.Ran, rep.FailingSeeds())
	}
	var p *PanicError
	if !errors.As(rep.Failures[0].Err, &p) || p.Value != "planted 5" || !strings.Contains(string(p.Stack), "sweep_test.go") {
		t.Fatalf("failure of seed 5: %#v", rep.Failures[0].Err)
	}
	if rep.Failures[0].Err.Error() != "panic: planted 5" {
		t.Errorf("Error() = %q", rep.Failures[0].Err.Error())
	}
}

func TestBatchPanicRerunsTheRest(t *testing.T) {
	set, _ := Parse("0..9")
	var calls [][]uint64
	rep, err := RunBatches(Config[int]{Seeds: set, Workers: 1, KeepGoing: true}, 5,
		func(w *Worker, seeds []uint64, report func(uint64, int, error)) {
			calls = append(calls, slices.Clone(seeds))
			for _, s := range seeds {
				if s == 2 {
					panic("process died")
				}
				report(s, 0, nil)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(calls); got != "[[0 1 2 3 4] [3 4] [5 6 7 8 9]]" {
		t.Errorf("batches %s", got)
	}
	if rep.Ran != 10 || rep.FailingSeeds().String() != "2" {
		t.Errorf("ran %d, failing %v", rep.Ran, rep.FailingSeeds())
	}
}

func TestContextStopsTheSweep(t *testing.T) {
	set, _ := Parse("0..999")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := Run(Config[int]{Seeds: set, Workers: 2, Context: ctx}, func(_ *Worker, seed uint64) (int, error) {
		if seed == 10 {
			cancel()
		}
		return 0, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Ran < 10 || rep.Ran > 20 {
		t.Errorf("interrupted %v after %d seeds", rep.Interrupted, rep.Ran)
	}
}

func TestBadInput(t *testing.T) {
	set, _ := Parse("0..9")
	ok := func(*Worker, uint64) (int, error) { return 0, nil }
	for _, c := range []struct {
		name string
		cfg  Config[int]
		body func(*Worker, uint64) (int, error)
		want error
	}{
		{"empty list", Config[int]{Workers: 1}, ok, ErrNoSeeds},
		{"empty range", Config[int]{Seeds: Set{{Lo: 5, Hi: 3}}, Workers: 1}, ok, ErrNoSeeds},
		{"too many seeds", Config[int]{Seeds: Set{{Lo: 0, Hi: ^uint64(0)}}, Workers: 1}, ok, nil},
		{"shard 3/2", Config[int]{Seeds: set, Shard: Shard{I: 3, N: 2}, Workers: 1}, ok, ErrBadShard},
		{"shard 1/0", Config[int]{Seeds: set, Shard: Shard{I: 1, N: 0}, Workers: 1}, ok, ErrBadShard},
		{"empty shard", Config[int]{Seeds: Set{{Lo: 0, Hi: 1}}, Shard: Shard{I: 2, N: 3}, Workers: 1}, ok, ErrNoSeeds},
		{"no workers", Config[int]{Seeds: set}, ok, ErrWorkers},
		{"negative workers", Config[int]{Seeds: set, Workers: -2}, ok, ErrWorkers},
		{"GC off", Config[int]{Seeds: set, Workers: 1, GCPercent: -1}, ok, ErrGC},
		{"nil body", Config[int]{Seeds: set, Workers: 1}, nil, ErrNilBody},
	} {
		rep, err := Run(c.cfg, c.body)
		if err == nil || rep != nil || c.want != nil && !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), "sweep: ") {
			t.Errorf("%s: Run returned %v, %v; want a sweep error %v", c.name, rep, err, c.want)
		}
	}
	if _, err := RunBatches(Config[int]{Seeds: set, Workers: 1}, 0, func(*Worker, []uint64, func(uint64, int, error)) {}); err == nil {
		t.Error("RunBatches with batches of 0 seeds succeeded")
	}
}
