package nemesis_test

import (
	"testing"
	"time"

	"github.com/simrt/simrt/nemesis"
)

// BenchmarkSwarmDetection measures how often the heartbeat cluster's
// planted bug (n2 killed while cut off from n1) is found per seed, with
// every fault kind enabled, with swarm testing on and off: the metrics are
// the detection rate over the seeds run and the first failing seed.
//
//	go test -run '^$' -bench SwarmDetection -benchtime 200x ./nemesis/
func BenchmarkSwarmDetection(b *testing.B) {
	for _, swarm := range []bool{true, false} {
		name := "swarm=on"
		if !swarm {
			name = "swarm=off"
		}
		b.Run(name, func(b *testing.B) {
			cfg := nemesis.Config{Heal: 10 * time.Second, NoSwarm: !swarm}
			found, first := 0, -1
			for i := 0; b.Loop(); i++ {
				_, _, h := runHB(b, uint64(i), cfg, nil, nil)
				if h.bug != "" {
					found++
					if first < 0 {
						first = i
					}
				}
			}
			b.ReportMetric(float64(found)/float64(b.N), "detected/seed")
			b.ReportMetric(float64(first), "first-seed")
		})
	}
}
