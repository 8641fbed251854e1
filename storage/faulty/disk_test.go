package faulty_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/telemetry/audit"
)

// diskErr reports whether err is a disk-fault error with the given cause.
func diskErr(err, cause error) bool {
	return errors.Is(err, simrt.ErrIO) && errors.Is(err, faulty.ErrInjected) && errors.Is(err, cause)
}

// rates sets every rate to one half: a disk fault must fail operations
// before any of them draws.
var rates = faulty.Config{OpenRate: 0.5, ReadRate: 0.5, Write: faulty.WriteConfig{FailureRate: 0.5},
	SyncRate: 0.5, Resize: faulty.ResizeConfig{FailureRate: 0.5}, RemoveRate: 0.5, ScanRate: 0.5}

// synced opens name, writes data to it and syncs it.
func (e *env) synced(name, data string) simrt.Blob {
	e.t.Helper()
	b := e.open(name)
	e.write(b, 0, 0, data)
	if err := b.Sync(); err != nil {
		e.t.Fatalf("Sync: %v", err)
	}
	return b
}

func TestDiskFailFailsEveryOperation(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	b := e.synced("a", "saved")
	*e.fs.Config() = rates
	e.fs.SetDiskFault(faulty.DiskFault{Fail: true})
	if got := e.fs.DiskFault(); got != (faulty.DiskFault{Fail: true}) {
		t.Fatalf("DiskFault() = %+v", got)
	}
	_, _, openErr := e.fs.Open("p", []byte("a"))
	_, scanErr := e.fs.Scan("p")
	errs := map[string]error{
		"Open":            openErr,
		"ReadAt":          b.ReadAt(make([]byte, 1), 0),
		"WriteAt":         b.WriteAt(0, 0, []byte("x")),
		"WriteAt sync":    b.WriteAt(0, simrt.WriteSync, []byte("x")),
		"Resize":          b.Resize(1),
		"Scan":            scanErr,
		"Remove":          e.fs.Remove("p", []byte("a")),
		"RemovePartition": e.fs.RemovePartition("p"),
		"Sync":            b.Sync(),
	}
	for _, op := range slices.Sorted(maps.Keys(errs)) {
		if !diskErr(errs[op], faulty.ErrDiskFailed) {
			t.Errorf("%s on a failed disk: %v, want EIO (ErrDiskFailed)", op, errs[op])
		}
	}
	if want := "io error: injected storage fault: disk failed"; errs["Sync"].Error() != want {
		t.Errorf("error text %q, want %q", errs["Sync"], want)
	}
	if e.src.draws != 0 {
		t.Errorf("a failed disk drew %d numbers", e.src.draws)
	}
	// The failed sync poisoned the handle, even once the disk is healed.
	e.fs.SetDiskFault(faulty.DiskFault{})
	*e.fs.Config() = faulty.Config{}
	if err := b.Sync(); !diskErr(err, faulty.ErrDiskFailed) {
		t.Errorf("Sync of a poisoned handle after the heal: %v", err)
	}
	if got := e.crash("a"); got != "saved" {
		t.Errorf("after the crash %q, want the synced %q", got, "saved")
	}
	if got := e.fs.Faults()[fault.DiskFail]; got != uint64(len(errs)) {
		t.Errorf("disk-fail = %d, want %d", got, len(errs))
	}
}

func TestDiskFullFailsOnlyGrowth(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	b := e.synced("a", "0123456789")
	if err := e.open("gone").Close(); err != nil {
		t.Fatal(err)
	}
	e.fs.SetDiskFault(faulty.DiskFault{Full: true})
	_, _, createErr := e.fs.Open("p", []byte("new")) // creating writes a header
	for _, c := range []struct {
		name string
		err  error
	}{
		{"append", b.WriteAt(10, 0, []byte("x"))},
		{"straddling write", b.WriteAt(8, 0, []byte("xyz"))},
		{"write past the end", b.WriteAt(100, 0, []byte("x"))},
		{"growing resize", b.Resize(11)},
		{"creating open", createErr},
	} {
		if !diskErr(c.err, faulty.ErrNoSpace) {
			t.Errorf("%s on a full disk: %v, want ENOSPC (ErrNoSpace)", c.name, c.err)
		}
	}
	e.write(b, 0, 0, "ab")              // in place
	e.write(b, 8, 0, "yz")              // up to the end
	e.write(b, 10, 0, "")               // nothing
	if err := b.Resize(9); err != nil { // shrinking frees space
		t.Fatalf("shrinking resize on a full disk: %v", err)
	}
	if err := b.Sync(); err != nil {
		t.Fatalf("Sync on a full disk: %v", err)
	}
	p := make([]byte, 9)
	if err := b.ReadAt(p, 0); err != nil || string(p) != "ab234567y" {
		t.Fatalf("ReadAt on a full disk: %q, %v", p, err)
	}
	// The failed creation left no name: Scan lists only what opens.
	if names, err := e.fs.Scan("p"); err != nil || len(names) != 2 || string(names[0]) != "a" || string(names[1]) != "gone" {
		t.Fatalf("Scan on a full disk: %q, %v; want [a gone]", names, err)
	}
	e.open("gone") // an existing blob opens
	if err := e.fs.Remove("p", []byte("gone")); err != nil {
		t.Fatalf("Remove on a full disk: %v", err)
	}
	if got := e.crash("a"); got != "ab234567y" {
		t.Fatalf("after the crash %q", got)
	}
	if got := e.fs.Faults()[fault.DiskFull]; got != 5 {
		t.Fatalf("disk-full = %d, want 5", got)
	}
}

func TestDiskReadOnlyFailsMutations(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	clean := e.synced("a", "saved")
	dirty := e.synced("b", "kept")
	e.write(dirty, 0, 0, "lost")
	e.fs.SetDiskFault(faulty.DiskFault{ReadOnly: true})
	_, _, createErr := e.fs.Open("p", []byte("new"))
	_, _, createPartErr := e.fs.Open("q", []byte("new"))
	for _, c := range []struct {
		name string
		err  error
	}{
		{"WriteAt", clean.WriteAt(0, 0, []byte("x"))},
		{"WriteAt sync", clean.WriteAt(0, simrt.WriteSync, []byte("x"))},
		{"shrinking Resize", clean.Resize(1)},
		{"Remove", e.fs.Remove("p", []byte("a"))},
		{"RemovePartition", e.fs.RemovePartition("p")},
		{"Open of a new blob", createErr},
		{"Open of a blob in a new partition", createPartErr},
		{"Sync of a dirty handle", dirty.Sync()},
	} {
		if !diskErr(c.err, faulty.ErrReadOnly) {
			t.Errorf("%s on a read-only disk: %v, want EROFS (ErrReadOnly)", c.name, c.err)
		}
	}
	if err := clean.Sync(); err != nil {
		t.Errorf("Sync of a clean handle on a read-only disk: %v", err)
	}
	p := make([]byte, 5)
	if err := clean.ReadAt(p, 0); err != nil || string(p) != "saved" {
		t.Errorf("ReadAt on a read-only disk: %q, %v", p, err)
	}
	if names, err := e.fs.Scan("p"); err != nil || len(names) != 2 {
		t.Errorf("Scan on a read-only disk: %q, %v", names, err)
	}
	if err := clean.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.fs.Open("p", []byte("a")); err != nil {
		t.Errorf("Open of an existing blob on a read-only disk: %v", err)
	}
	// The failed sync poisoned the dirty handle.
	e.fs.SetDiskFault(faulty.DiskFault{})
	if err := dirty.Sync(); !diskErr(err, faulty.ErrReadOnly) {
		t.Errorf("Sync of the poisoned handle after the heal: %v", err)
	}
	if got := e.crash("b"); got != "kept" {
		t.Errorf("after the crash %q, want the synced %q", got, "kept")
	}
	if got := e.durable("a"); got != "saved" {
		t.Errorf("after the crash %q, want %q", got, "saved")
	}
	if got := e.fs.Faults()[fault.DiskReadOnly]; got != 8 {
		t.Errorf("disk-readonly = %d, want 8", got)
	}
}

func TestDiskFaultPrecedence(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	b := e.open("a")
	e.fs.SetDiskFault(faulty.DiskFault{Fail: true, Full: true, ReadOnly: true})
	if err := b.WriteAt(0, 0, []byte("x")); !diskErr(err, faulty.ErrDiskFailed) {
		t.Errorf("Fail+ReadOnly+Full: %v, want ErrDiskFailed", err)
	}
	e.fs.SetDiskFault(faulty.DiskFault{Full: true, ReadOnly: true})
	if err := b.WriteAt(0, 0, []byte("x")); !diskErr(err, faulty.ErrReadOnly) || errors.Is(err, faulty.ErrNoSpace) {
		t.Errorf("ReadOnly+Full: %v, want ErrReadOnly only", err)
	}
}

func TestDiskSlowSleepsEveryOperation(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	b := e.open("a")
	e.fs.SetDiskFault(faulty.DiskFault{Slow: time.Millisecond})
	e.write(b, 0, 0, "ignored") // no sleep function: Slow is ignored
	var slept []time.Duration
	e.fs.SetSleep(func(d time.Duration) { slept = append(slept, d) })
	e.write(b, 0, 0, "x")
	if err := b.ReadAt(make([]byte, 1), 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.StartSync().Await(nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Resize(1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fs.Scan("p"); err != nil {
		t.Fatal(err)
	}
	e.fs.SetDiskFault(faulty.DiskFault{})
	e.write(b, 0, 0, "y") // healed
	want := slices.Repeat([]time.Duration{time.Millisecond}, 6)
	if !slices.Equal(slept, want) {
		t.Fatalf("slept %v, want %v", slept, want)
	}
	if got := e.fs.Faults()[fault.DiskSlow]; got != 6 {
		t.Fatalf("disk-slow = %d, want 6", got)
	}
}

type events []string

func (r *events) Event(label audit.Label, fields ...[]byte) {
	s := string(label)
	for _, f := range fields {
		s += " " + string(f)
	}
	*r = append(*r, s)
}

func TestDiskFaultRecordedAndEffects(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0, Mode: faulty.Prefix}})
	var rec events
	e.fs.SetRecorder(&rec)
	now := time.Unix(0, 0)
	e.fs.SetClock(func() time.Time { return now })
	b := e.open("a")
	now = now.Add(time.Second)
	e.fs.SetDiskFault(faulty.DiskFault{Fail: true, Slow: time.Millisecond})
	b.WriteAt(0, 0, []byte("x"))
	b.ReadAt(make([]byte, 1), 0)
	e.fs.SetDiskFault(faulty.DiskFault{}) // healed: not an effect
	e.write(b, 0, 0, "ok")
	now = now.Add(time.Second)
	e.fs.SetDiskFault(faulty.DiskFault{Full: true})
	b.WriteAt(2, 0, []byte("grow"))
	wantRec := []string{"storage_disk_fault slow=1ms fail", "storage_disk_fault healthy", "storage_disk_fault full"}
	if !slices.Equal(rec, wantRec) {
		t.Errorf("recorded %q, want %q", rec, wantRec)
	}
	var got []string
	for _, eff := range e.fs.Effects() {
		got = append(got, eff.String())
	}
	want := []string{"disk slow=1ms fail at 1s: 2 ops failed", "disk full at 2s: 1 ops failed"}
	if !slices.Equal(got, want) {
		t.Errorf("effects %q, want %q", got, want)
	}
	if s := (faulty.DiskFault{}).String(); s != "healthy" {
		t.Errorf("zero DiskFault String = %q", s)
	}
}

func TestCrashEffectCountsLostAndTorn(t *testing.T) {
	e := newEnv(t, 3, faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.5, Mode: faulty.Subset}})
	b := e.open("a")
	for i := range 20 {
		e.write(b, uint64(i*8), 0, "abcdefgh")
	}
	if err := e.fs.Crash(); err != nil {
		t.Fatal(err)
	}
	effs := e.fs.Effects()
	if len(effs) != 1 || effs[0].Fault != "crash" {
		t.Fatalf("effects %v, want one crash", effs)
	}
	f := e.fs.Faults()
	if effs[0].Lost != f["crash_lost_write"] || effs[0].Torn != f["crash_torn_write"] || effs[0].Torn == 0 {
		t.Fatalf("crash effect %+v, faults %v", effs[0], f)
	}
	if !strings.HasPrefix(effs[0].String(), "crash: ") {
		t.Fatalf("crash effect %q", effs[0])
	}
}

// TestDiskFaultStartSync: StartSync fails as Sync does (on a failed disk,
// and on a read-only one for a dirty handle only) and poisons the handle.
func TestDiskFaultStartSync(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	clean := e.synced("a", "x")
	dirty := e.open("b")
	e.write(dirty, 0, 0, "y")
	e.fs.SetDiskFault(faulty.DiskFault{ReadOnly: true})
	if _, err := clean.StartSync().Await(nil); err != nil {
		t.Errorf("StartSync of a clean handle on a read-only disk: %v", err)
	}
	if _, err := dirty.StartSync().Await(nil); !diskErr(err, faulty.ErrReadOnly) {
		t.Errorf("StartSync of a dirty handle on a read-only disk: %v", err)
	}
	e.fs.SetDiskFault(faulty.DiskFault{Fail: true})
	if _, err := clean.StartSync().Await(nil); !diskErr(err, faulty.ErrDiskFailed) {
		t.Errorf("StartSync on a failed disk: %v", err)
	}
	e.fs.SetDiskFault(faulty.DiskFault{})
	for i, b := range []simrt.Blob{clean, dirty} {
		if _, err := b.StartSync().Await(nil); err == nil {
			t.Errorf("StartSync of poisoned handle %d after the heal succeeded", i)
		}
	}
}
