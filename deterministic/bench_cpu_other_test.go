//go:build !unix

package deterministic

import "time"

// cpuStart is where cpuNow counts from.
var cpuStart = time.Now()

// cpuNow stands in for the process's CPU time where getrusage does not
// exist: it is the wall time since cpuStart.
func cpuNow() time.Duration { return time.Since(cpuStart) }
