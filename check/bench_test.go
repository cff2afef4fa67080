package check_test

import (
	"fmt"
	"testing"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// BenchmarkExhaustiveMerged3 is the exhaustive search of merged with three
// threads, one call each, under the GIL model; it reports steps per second.
func BenchmarkExhaustiveMerged3(b *testing.B) {
	benchExplore(b, "merged", scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}, check.StrategyDFS)
}

// BenchmarkExhaustiveMerged4 is the same with four threads.
func BenchmarkExhaustiveMerged4(b *testing.B) {
	benchExplore(b, "merged", scenario.Shape{Threads: 4, Blocks: 1, Calls: 1, Modules: 1, Names: 1}, check.StrategyDFS)
}

// BenchmarkExhaustiveMerged5 is the same with five threads: 7.7M steps,
// a visited set far larger than the caches (the 3-thread search is mostly
// setting up, the 4-thread one fits in the last-level cache).
func BenchmarkExhaustiveMerged5(b *testing.B) {
	benchExplore(b, "merged", scenario.Shape{Threads: 5, Blocks: 1, Calls: 1, Modules: 1, Names: 1}, check.StrategyDFS)
}

func benchExplore(b *testing.B, protocol string, sh scenario.Shape, strategy string) {
	benchConfig(b, protocol, sh, check.Config{Strategy: strategy})
}

func benchWorkers(b *testing.B, protocol string, sh scenario.Shape, workers int) {
	benchConfig(b, protocol, sh, check.Config{Strategy: check.StrategyDFS, Workers: workers})
}

func benchConfig(b *testing.B, protocol string, sh scenario.Shape, cfg check.Config) {
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
		cfg.Protocol, cfg.Scenario, cfg.Atomicity = p, sc, model.GIL
		rep, err := check.Explore(cfg)
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

// BenchmarkParallelMerged4 is the exhaustive search of merged with four
// threads on 1 and 2 workers: compare their steps/s.
func BenchmarkParallelMerged4(b *testing.B) { benchParallel(b, 4) }

// BenchmarkParallelMerged5 is the same with five threads, a search 25
// times longer, so that the sequential start (the prefix that makes the
// workers' roots) weighs less.
func BenchmarkParallelMerged5(b *testing.B) { benchParallel(b, 5) }

func benchParallel(b *testing.B, threads int) {
	sh := scenario.Shape{Threads: threads, Blocks: 1, Calls: 1, Modules: 1, Names: 1}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			benchWorkers(b, "merged", sh, workers)
		})
	}
}

// BenchmarkPORMerged is the por search of merged with three threads, three
// calls each into three modules, each nesting one more (68,949 states):
// what the persistent sets cost per state, the futures' memo among it.
func BenchmarkPORMerged(b *testing.B) {
	benchExplore(b, "merged", scenario.Shape{Threads: 3, Blocks: 1, Calls: 3, Modules: 3, Names: 1, Nest: 1}, check.StrategyPOR)
}

// BenchmarkPORMerged4 is the same with four threads (717,060 states,
// issue 20's side-by-side scenario), on one worker and on two: compare
// their steps/s.
func BenchmarkPORMerged4(b *testing.B) {
	sh := scenario.Shape{Threads: 4, Blocks: 1, Calls: 3, Modules: 3, Names: 1, Nest: 1}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			benchConfig(b, "merged", sh, check.Config{Strategy: check.StrategyPOR, Workers: workers})
		})
	}
}

// BenchmarkPORMergedWide is the por search of merged with sixteen threads,
// two calls into two modules (128,995 states): wide blocks, where a
// state's persistent set is worked out over many alike threads.
func BenchmarkPORMergedWide(b *testing.B) {
	benchExplore(b, "merged", scenario.Shape{Threads: 16, Blocks: 1, Calls: 2, Modules: 2, Names: 1}, check.StrategyPOR)
}

// BenchmarkPORFaults is the por search of proposed with three threads,
// two hosts and both faults (280,621 states): persistent sets where a
// raise can fall and an interrupt land (model/reduce_faults.go).
func BenchmarkPORFaults(b *testing.B) {
	both := scenario.Faults(0).With(scenario.FaultInterrupt).With(scenario.FaultRaise)
	benchExplore(b, "proposed", scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2, Faults: both}, check.StrategyPOR)
}

// BenchmarkEveryN is the proof for every thread count (-threads all) of
// proposed under the GIL, one call into one module: the explicit search
// for 1..4 threads, then the counter abstraction (3,206 abstract states).
func BenchmarkEveryN(b *testing.B) {
	p, err := check.Lookup("proposed")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := check.ProveEveryN(check.EveryNConfig{Protocol: p, Shape: scenario.DefaultShape, Atomicity: model.GIL})
		if err != nil {
			b.Fatal(err)
		}
		if res.Verdict != check.EveryNVerified {
			b.Fatal(res.Verdict)
		}
	}
}
