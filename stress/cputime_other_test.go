//go:build !unix

package stress_test

import "time"

// cpuTime is not measured here: the benchmarks report 0 cpu-ns/op.
func cpuTime() time.Duration { return 0 }
