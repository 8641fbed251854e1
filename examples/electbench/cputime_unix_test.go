//go:build unix

package electbench

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, every thread
// counted (the collector's workers too). Unlike the wall clock it does not
// count the time other processes held the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
