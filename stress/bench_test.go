package stress_test

import (
	"fmt"
	"testing"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/stress"
)

// benchCalls is the device calls each GPU thread makes per launch in the
// benchmarks: enough that the launch's own cost (a fresh world, the host's
// steps, the goroutines) is a small share of each call's.
const benchCalls = 16

// BenchmarkCall measures one swapped device call (the with statement's
// entry and exit, the body's use of cuda, and its share of the launch) on
// real goroutines, one per GPU thread, for each variant, atomicity model
// and block size. ns/op is wall-clock nanoseconds per call, cpu-ns/op the
// CPU time the process spent per call (all cores; less disturbed by other
// processes' load), steps/op the model steps per call. Violations
// (naive's) are counted and passed over: a failed call costs what a good
// one does. Without -gosched noise, and without the step records a
// violation report needs.
//
//	go test -run XXX -bench Call -count 6 ./stress | tee bench.txt
//	benchstat -table /atomicity -row /goroutines -col /protocol bench.txt
func BenchmarkCall(b *testing.B) {
	for _, name := range []string{"naive", "global-lock", "merged", "proposed"} {
		p, err := check.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range model.Atomicities() {
			for _, n := range []int{1, 2, 8, 64, 1024} {
				b.Run(fmt.Sprintf("protocol=%s/atomicity=%s/goroutines=%d", name, a, n), func(b *testing.B) {
					benchStress(b, p, a, n, 0)
				})
			}
		}
	}
}

// BenchmarkGosched measures what yielding after a step costs merged in GIL
// mode (the noise that helps stress find bugs).
func BenchmarkGosched(b *testing.B) {
	p, err := check.Lookup("merged")
	if err != nil {
		b.Fatal(err)
	}
	for _, g := range []float64{0, 0.1, 0.5, 1} {
		for _, n := range []int{1, 64, 1024} {
			b.Run(fmt.Sprintf("gosched=%g/goroutines=%d", g, n), func(b *testing.B) {
				benchStress(b, p, model.GIL, n, g)
			})
		}
	}
}

func benchStress(b *testing.B, p *model.Protocol, a model.Atomicity, threads int, gosched float64) {
	sh := scenario.DefaultShape
	sh.Threads, sh.Calls = threads, benchCalls
	sc, err := sh.BuildUpTo(scenario.MaxStressThreads)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cpuTime()
	res, err := stress.Run(stress.Config{Protocol: p, Scenario: sc, Atomicity: a, MaxCalls: int64(b.N),
		Seed: 1, Gosched: gosched, KeepGoing: true})
	if err != nil {
		b.Fatal(err)
	}
	cpu = cpuTime() - cpu
	b.StopTimer()
	calls := float64(res.Calls)
	b.ReportMetric(float64(res.Elapsed.Nanoseconds())/calls, "ns/op")
	b.ReportMetric(float64(cpu.Nanoseconds())/calls, "cpu-ns/op")
	b.ReportMetric(float64(res.Steps)/calls, "steps/op")
}
