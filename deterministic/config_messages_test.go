package deterministic

import (
	"math"
	"testing"
	"time"
)

// Every invalid Config panics naming its field, as realtime.New does
// ("realtime.New: Config.Timeout must not be negative").
func TestConfigPanicsNameTheField(t *testing.T) {
	for _, c := range []struct {
		want string
		cfg  Config
	}{
		{"deterministic.New: Config.Cycle must not be negative", Config{Cycle: -1}},
		{"deterministic.New: Config.Timeout must not be negative", Config{Timeout: -time.Second}},
		{"deterministic.New: Config.StartTime must not be before the Unix epoch", Config{StartTime: time.Unix(-1, 0)}},
		{"deterministic.New: Config.StartTime must be before the end of simulated time", Config{StartTime: time.Unix(0, math.MaxInt64)}},
		{"deterministic.New: Config.Scheduling.YieldProbability must be at most 1", Config{Scheduling: Scheduling{YieldProbability: 2}}},
		{"deterministic.New: Config.Scheduling.YieldProbability must be at most 1", Config{Scheduling: Scheduling{YieldProbability: math.NaN()}}},
		{"deterministic.New: Config.Scheduling.Scheduler is unknown", Config{Scheduling: Scheduling{Scheduler: 7}}},
		{"deterministic.New: Config.Scheduling.PCTDepth must not be negative", Config{Scheduling: Scheduling{PCTDepth: -1}}},
		{"deterministic.New: Config.Scheduling.PCTSteps must not be negative", Config{Scheduling: Scheduling{PCTSteps: -1}}},
		{"deterministic.New: Config.Buggify.SiteProbability must be in [0, 1]", Config{Buggify: BuggifyConfig{SiteProbability: 2}}},
	} {
		mustPanic(t, c.want, func() { New(c.cfg) })
	}
}
