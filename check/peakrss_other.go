//go:build !unix

package check

// peakRSS is 0: this system has no getrusage.
func peakRSS() int64 { return 0 }
