package faulty

import "math/rand/v2"

// Config sets how often each storage operation fails. Every rate is a
// probability: 0 (the zero value) never fires and draws nothing from the
// generator, 1 always fires and draws nothing either, anything in between
// draws one uint64 per decision. Rates below 0 (or NaN) count as 0, above 1
// as 1. The zero Config injects no faults and loses every unsynced write at
// a crash.
type Config struct {
	// OpenRate is the probability that Open or OpenVersioned fails.
	OpenRate float64
	// ReadRate is the probability that ReadAt fails.
	ReadRate float64
	// Write sets write failures and what survives a crash.
	Write WriteConfig
	// SyncRate is the probability that Sync, StartSync or the sync of a
	// WriteSync write fails.
	SyncRate float64
	// Resize sets resize failures and what survives a crash.
	Resize ResizeConfig
	// RemoveRate is the probability that Remove or RemovePartition fails.
	RemoveRate float64
	// ScanRate is the probability that Scan fails.
	ScanRate float64
}

// WriteConfig sets write faults.
type WriteConfig struct {
	// FailureRate is the probability that WriteAt fails. A failed write
	// leaves, durably, the bytes the retention policy keeps (none when
	// RetentionRate is 0).
	FailureRate float64
	// RetentionRate is the per-byte probability that bytes of a write that
	// was never synced survive a crash, or that bytes of a failed write are
	// kept at all. Zero loses them all; one keeps them all.
	RetentionRate float64
	// Mode says how retained bytes are chosen. The zero value is Prefix.
	Mode PartialWriteMode
}

// PartialWriteMode says which bytes of a write the retention policy keeps.
type PartialWriteMode uint8

const (
	// Prefix keeps the bytes from the start of the write up to the first
	// byte not kept: the write was cut short.
	Prefix PartialWriteMode = iota + 1
	// Subset keeps each byte independently: the write was torn.
	Subset
)

// String names the mode.
func (m PartialWriteMode) String() string {
	switch m {
	case Subset:
		return "Subset"
	default:
		return "Prefix"
	}
}

// ResizeConfig sets resize faults.
type ResizeConfig struct {
	// FailureRate is the probability that Resize fails. A successful resize
	// survives a crash without a sync with the same probability, drawn
	// separately.
	FailureRate float64
	// PartialRate is the probability that a failed resize leaves the blob at
	// a size strictly between the old and the new one (when one exists),
	// which then survives a crash.
	PartialRate float64
}

// sample decides one event of probability p. Only rates strictly between 0
// and 1 draw from rng: one uint64, compared with p scaled to 2^64.
func sample(rng *rand.Rand, p float64) bool {
	if !(p > 0) {
		return false
	}
	if p >= 1 {
		return true
	}
	// p < 1, so p·2^64 is below 2^64: scaling by a power of two is exact.
	return rng.Uint64() < uint64(p*(1<<64))
}
