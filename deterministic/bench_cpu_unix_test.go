//go:build unix

package deterministic

import (
	"syscall"
	"time"
)

// cpuNow returns the CPU time the process has used. BenchmarkResumeRatio
// times its batches with it, so that time the loaded machine spends running
// other processes is not counted against either side.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
