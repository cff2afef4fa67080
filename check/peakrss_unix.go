//go:build unix

package check

import (
	"runtime"
	"syscall"
)

// peakRSS is the most memory this process has held resident so far, in
// bytes (getrusage's ru_maxrss); 0 where the system does not say.
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux and the BSDs
}
