package nemesis

import (
	"fmt"
	"time"
)

// Fault enables one kind of fault, with its weight and duration
// distribution.
type Fault struct {
	Kind Kind
	// Weight is the kind's share of the draws, relative to the other
	// enabled kinds; zero means 1. Under swarm testing each seed multiplies
	// it by a random factor in [1, 10].
	Weight int
	// Min and Max bound the fault's duration, drawn uniformly in
	// milliseconds; both zero mean 100ms and 2s.
	Min, Max time.Duration
}

// Config describes the faults a nemesis draws.
type Config struct {
	// Faults are the enabled kinds; nil enables every kind with weight 1
	// and the default durations.
	Faults []Fault
	// NoSwarm turns swarm testing off. With swarm testing (the default,
	// after Groce et al., "Swarm testing", ISSTA 2012) each seed enables a
	// random non-empty subset of Faults with random weights, so that some
	// seeds have no partitions and others only crashes: an even mix of
	// every kind masks bugs that one kind alone finds. With NoSwarm every
	// seed draws from every kind with its configured weight.
	NoSwarm bool
	// Start is the earliest time a fault starts.
	Start time.Duration
	// GapMin and GapMax bound the time between the starts of two
	// consecutive faults; both zero mean 100ms and 1s. Otherwise GapMin
	// must be at least MinGap, and (Heal-Start)/GapMin at most MaxFaults.
	GapMin, GapMax time.Duration
	// Heal is the time T at which every fault still active is undone.
	// Faults start before it; it is required.
	Heal time.Duration
	// MaxDown is the largest number of nodes killed, powered off or paused
	// at once (a whole-cluster PowerLoss aside); zero means a minority,
	// (n-1)/2 of n nodes, at least 1.
	MaxDown int
	// MaxLatency bounds the latency a Latency fault adds (its jitter is at
	// most half of it); zero means 200ms.
	MaxLatency time.Duration
	// MaxLoss bounds a Loss fault's rate, in (0, 1]; zero means 0.3.
	MaxLoss float64
	// MaxOffset bounds a ClockOffset fault's offset either way; zero means
	// 2s. A backward offset is also at most the fault's start time, so
	// that a clock starting at the Unix epoch can take it.
	MaxOffset time.Duration
	// MaxDrift bounds a ClockDrift fault's drift either way, below 0.5;
	// zero means 0.001 (1000 ppm).
	MaxDrift float64
	// MaxJump bounds a ClockJump fault's step either way; zero means 1s.
	// A backward step is also at most the fault's start time.
	MaxJump time.Duration
	// MaxDiskSlow bounds the delay a DiskSlow fault adds to each storage
	// operation; zero means 50ms.
	MaxDiskSlow time.Duration
}

// MinGap is the smallest Config.GapMin Draw accepts: a shorter gap would
// draw a fault every few simulated nanoseconds.
const MinGap = time.Millisecond

// MaxFaults is the most faults a Config may let Draw draw, as
// (Heal-Start)/GapMin: a larger schedule is a mistake (a Heal of hours, a
// tiny gap) that would take Draw, and the run, far too long.
const MaxFaults = 100_000

// withDefaults validates cfg for nodes and fills in its defaults.
func (cfg Config) withDefaults(nodes []string) (Config, error) {
	if len(nodes) == 0 {
		return cfg, fmt.Errorf("nemesis: no nodes")
	}
	seen := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if err := checkName(n); err != nil {
			return cfg, fmt.Errorf("nemesis: %w", err)
		}
		if seen[n] {
			return cfg, fmt.Errorf("nemesis: node %q listed twice", n)
		}
		seen[n] = true
	}
	switch {
	case cfg.Heal <= 0:
		return cfg, fmt.Errorf("nemesis: Config.Heal %v is not positive (the heal time T is required)", cfg.Heal)
	case cfg.Start < 0 || cfg.Start >= cfg.Heal:
		return cfg, fmt.Errorf("nemesis: Config.Start %v not in [0, Heal=%v)", cfg.Start, cfg.Heal)
	case cfg.GapMin < 0 || cfg.GapMax < cfg.GapMin:
		return cfg, fmt.Errorf("nemesis: gap [%v, %v] is not a range of durations", cfg.GapMin, cfg.GapMax)
	case cfg.MaxDown < 0 || cfg.MaxDown > len(nodes):
		return cfg, fmt.Errorf("nemesis: Config.MaxDown %d not in [0, %d nodes]", cfg.MaxDown, len(nodes))
	case cfg.MaxLatency < 0 || cfg.MaxOffset < 0 || cfg.MaxJump < 0 || cfg.MaxDiskSlow < 0:
		return cfg, fmt.Errorf("nemesis: a negative Max bound in Config")
	case cfg.MaxLoss < 0 || cfg.MaxLoss > 1:
		return cfg, fmt.Errorf("nemesis: Config.MaxLoss %v not in [0, 1]", cfg.MaxLoss)
	case cfg.MaxDrift < 0 || cfg.MaxDrift >= 0.5:
		return cfg, fmt.Errorf("nemesis: Config.MaxDrift %v not in [0, 0.5)", cfg.MaxDrift)
	}
	if cfg.GapMax == 0 {
		cfg.GapMin, cfg.GapMax = 100*time.Millisecond, time.Second
	}
	if err := cfg.checkGaps(); err != nil {
		return cfg, err
	}
	if cfg.MaxDown == 0 {
		cfg.MaxDown = max(1, (len(nodes)-1)/2)
	}
	cfg.MaxLatency = orDefault(cfg.MaxLatency, 200*time.Millisecond)
	cfg.MaxOffset = orDefault(cfg.MaxOffset, 2*time.Second)
	cfg.MaxJump = orDefault(cfg.MaxJump, time.Second)
	cfg.MaxDiskSlow = orDefault(cfg.MaxDiskSlow, 50*time.Millisecond)
	if cfg.MaxLoss == 0 {
		cfg.MaxLoss = 0.3
	}
	if cfg.MaxDrift == 0 {
		cfg.MaxDrift = 0.001
	}
	faults := cfg.Faults
	if faults == nil {
		for _, k := range Kinds() {
			faults = append(faults, Fault{Kind: k})
		}
	}
	if len(faults) == 0 {
		return cfg, fmt.Errorf("nemesis: Config.Faults is empty (nil enables every kind)")
	}
	dup := make([]bool, len(kinds))
	cfg.Faults = make([]Fault, len(faults))
	for i, f := range faults {
		switch {
		case !f.Kind.valid():
			return cfg, fmt.Errorf("nemesis: Config.Faults[%d]: unknown kind %d", i, f.Kind)
		case dup[f.Kind]:
			return cfg, fmt.Errorf("nemesis: Config.Faults[%d]: kind %s enabled twice", i, f.Kind)
		case f.Weight < 0:
			return cfg, fmt.Errorf("nemesis: Config.Faults[%d] (%s): negative weight %d", i, f.Kind, f.Weight)
		case f.Min < 0 || f.Max < f.Min:
			return cfg, fmt.Errorf("nemesis: Config.Faults[%d] (%s): duration [%v, %v] is not a range", i, f.Kind, f.Min, f.Max)
		}
		dup[f.Kind] = true
		if f.Weight == 0 {
			f.Weight = 1
		}
		if f.Max == 0 {
			f.Min, f.Max = 100*time.Millisecond, 2*time.Second
		}
		cfg.Faults[i] = f
	}
	return cfg, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// checkGaps refuses gaps below MinGap and more than MaxFaults faults.
func (cfg Config) checkGaps() error {
	if cfg.GapMin < MinGap {
		return fmt.Errorf("nemesis: Config.GapMin %v is below the minimum gap of %v", cfg.GapMin, MinGap)
	}
	if n := (cfg.Heal - cfg.Start) / cfg.GapMin; n > MaxFaults {
		return fmt.Errorf("nemesis: Config.GapMin %v over [%v, %v) allows %d faults, more than %d (MaxFaults)", cfg.GapMin, cfg.Start, cfg.Heal, n, MaxFaults)
	}
	return nil
}
