package deterministic_test

import (
	"errors"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/storage/faulty"
)

// TestContextDiskFault switches the runtime's disk through every fault
// and back: errors are told apart, Slow costs simulated time, synced data
// survives the crash, and the faults are counted.
func TestContextDiskFault(t *testing.T) {
	start(t, deterministic.New(deterministic.Config{Seed: 1}), func(ctx *deterministic.Context) {
		b, _ := open(t, ctx, "p", "b")
		must(t, b.WriteAt(0, simrt.WriteSync, []byte("saved")))

		ctx.SetDiskFault(faulty.DiskFault{Slow: 10 * time.Millisecond})
		before := ctx.Now()
		must(t, b.ReadAt(make([]byte, 1), 0))
		check(t, ctx.Now().Sub(before) == 10*time.Millisecond, "slow read took", ctx.Now().Sub(before))

		for _, c := range []struct {
			f     faulty.DiskFault
			cause error
		}{
			{faulty.DiskFault{Fail: true}, faulty.ErrDiskFailed},
			{faulty.DiskFault{Full: true}, faulty.ErrNoSpace},
			{faulty.DiskFault{ReadOnly: true}, faulty.ErrReadOnly},
		} {
			ctx.SetDiskFault(c.f)
			check(t, ctx.DiskFault() == c.f, "DiskFault()", ctx.DiskFault())
			err := b.WriteAt(5, 0, []byte("more"))
			check(t, errors.Is(err, simrt.ErrIO) && errors.Is(err, c.cause), c.f.String(), err)
		}
		ctx.SetDiskFault(faulty.DiskFault{})
		must(t, b.WriteAt(5, simrt.WriteSync, []byte("!")))
		p := make([]byte, 6)
		must(t, b.ReadAt(p, 0))
		check(t, string(p) == "saved!", "after the heal", string(p))

		want := fault.Counts{fault.DiskSlow: 1, fault.DiskFail: 1, fault.DiskFull: 1, fault.DiskReadOnly: 1}
		for _, f := range ctx.Faults() {
			if n, ok := want[f.Kind]; ok {
				check(t, f.Count == n, f.Kind.String(), f.Count)
				delete(want, f.Kind)
			}
		}
		check(t, len(want) == 0, "faults not counted", want)
	})
}

// TestDiskFaultAudited checks that a disk fault is part of the run's
// fingerprint, and that a run without one keeps its fingerprint.
func TestDiskFaultAudited(t *testing.T) {
	run := func(set bool) (state string) {
		start(t, deterministic.New(deterministic.Config{Seed: 3}), func(ctx *deterministic.Context) {
			b, _ := open(t, ctx, "p", "b")
			if set {
				ctx.SetDiskFault(faulty.DiskFault{Slow: time.Millisecond})
				ctx.SetDiskFault(faulty.DiskFault{})
			}
			must(t, b.WriteAt(0, simrt.WriteSync, []byte("x")))
			state = ctx.Auditor().State()
		})
		return state
	}
	plain, faulted := run(false), run(true)
	if plain == faulted {
		t.Fatalf("a disk fault left the audit state at %s", plain)
	}
	if again := run(false); again != plain {
		t.Fatalf("audit %s then %s", plain, again)
	}
}
