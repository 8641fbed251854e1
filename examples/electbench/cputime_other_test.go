//go:build !unix

package electbench

import "time"

// cpuTime is not measured on this platform: the cpu-ms metrics read 0.
func cpuTime() time.Duration { return 0 }
