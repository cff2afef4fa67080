package check_test

import (
	"testing"

	"swapcheck/check"
	"swapcheck/model"
)

// BenchmarkExhaustiveMerged3 is the exhaustive search of merged with three
// threads, one call each, under the GIL model; it reports steps per second.
func BenchmarkExhaustiveMerged3(b *testing.B) {
	benchExplore(b, "merged", model.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}, check.StrategyDFS)
}

// BenchmarkExhaustiveMerged4 is the same with four threads.
func BenchmarkExhaustiveMerged4(b *testing.B) {
	benchExplore(b, "merged", model.Shape{Threads: 4, Blocks: 1, Calls: 1, Modules: 1, Names: 1}, check.StrategyDFS)
}

func benchExplore(b *testing.B, protocol string, sh model.Shape, strategy string) {
	p, err := check.Lookup(protocol)
	if err != nil {
		b.Fatal(err)
	}
	sc, err := sh.Build()
	if err != nil {
		b.Fatal(err)
	}
	var steps int64
	for b.Loop() {
		rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: strategy})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Verified() {
			b.Fatalf("want verified, got %s", rep.Result.Verdict)
		}
		steps += rep.Result.Stats.Steps
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}
