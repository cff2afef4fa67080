//go:build unix

package stress_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: a
// benchmark's measure that other processes' load disturbs less than the
// wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
