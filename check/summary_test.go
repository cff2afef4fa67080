package check_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
)

// The summary carries the search's preemptions per execution and the
// process's peak memory, and a sequential search's preemptions are the
// same on every run.
func TestSummaryPreemptionsAndMemory(t *testing.T) {
	sc := mergedScenario(t, 2)
	tests := []struct {
		cfg check.Config
		// walks: random walks seldom run the schedule that never preempts,
		// and auto's por need not (its persistent sets pick who runs).
		walks bool
	}{
		{check.Config{Strategy: check.StrategyDFS}, false},
		{check.Config{Strategy: check.StrategyBFS}, false},
		{check.Config{Strategy: check.StrategyDPOR}, false},
		// proposed: merged's proof over critical sections is one execution
		{check.Config{Strategy: check.StrategyAuto, Workers: 1, Protocol: protocol(t, "proposed")}, true},
		{check.Config{Strategy: check.StrategyRandom, Runs: 50, Seed: 3}, true},
	}
	for _, tt := range tests {
		cfg := tt.cfg
		t.Run(cfg.Strategy, func(t *testing.T) {
			if cfg.Protocol == nil {
				cfg.Protocol = swapMerged(t)
			}
			cfg.Scenario, cfg.Atomicity = sc, model.GIL
			run := func() check.Summary {
				rep, err := check.Explore(cfg)
				require.NoError(t, err)
				return check.Summarize(rep)
			}
			s := run()
			require.NotNil(t, s.Preemptions)
			if !tt.walks {
				require.Zero(t, s.Preemptions.Min, "the schedule that never preempts")
			}
			require.Positive(t, s.Preemptions.Max, "merged needs preemptions to interleave")
			require.Less(t, float64(s.Preemptions.Min), s.Preemptions.Mean)
			require.Less(t, s.Preemptions.Mean, float64(s.Preemptions.Max))
			require.Equal(t, s.Preemptions, run().Preemptions)
			if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
				require.Greater(t, s.PeakRSSBytes, int64(1<<20), "a Go process holds more than 1 MiB")
			}

			var out bytes.Buffer
			require.NoError(t, s.WriteJSON(&out))
			var fields map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(out.Bytes(), &fields))
			require.Contains(t, fields, "preemptions")
			var back check.Summary
			require.NoError(t, json.Unmarshal(out.Bytes(), &back))
			require.Equal(t, s.Preemptions, back.Preemptions)
		})
	}
}

func TestMergeSummariesPreemptions(t *testing.T) {
	part := func(shard string, executions int64, pre *check.PreemptionStats, rss int64) check.Summary {
		return check.Summary{Protocol: "merged", Atomicity: "gil", Strategy: "states", Scenario: "s",
			Shard: shard, Verdict: "verified", Complete: true, Executions: executions, Preemptions: pre, PeakRSSBytes: rss}
	}
	tests := []struct {
		name  string
		parts []check.Summary
		want  *check.PreemptionStats
	}{
		{
			"fewest, most, mean weighted by executions",
			[]check.Summary{
				part("1/2", 6, &check.PreemptionStats{Min: 0, Mean: 0.5, Max: 3}, 20),
				part("0/2", 2, &check.PreemptionStats{Min: 1, Mean: 1.5, Max: 2}, 30),
			},
			&check.PreemptionStats{Min: 0, Mean: 0.75, Max: 3},
		},
		{
			"a part without them (an older summary) is left out",
			[]check.Summary{
				part("0/2", 4, &check.PreemptionStats{Min: 1, Mean: 2, Max: 4}, 30),
				part("1/2", 6, nil, 10),
			},
			&check.PreemptionStats{Min: 1, Mean: 2, Max: 4},
		},
		{
			"none has them",
			[]check.Summary{part("0/2", 4, nil, 30), part("1/2", 6, nil, 10)},
			nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := check.MergeSummaries(tt.parts)
			require.NoError(t, err)
			require.Equal(t, "verified", got.Verdict)
			require.Equal(t, tt.want, got.Preemptions)
			require.Equal(t, int64(30), got.PeakRSSBytes, "the largest part's")
		})
	}
}

// Several workers' preemption statistics say that they depend on timing;
// one worker's do not.
func TestSummaryPreemptionsByTiming(t *testing.T) {
	p, sc := swapMerged(t), mergedScenario(t, 3)
	for _, workers := range []int{1, 2} {
		rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS, Workers: workers})
		require.NoError(t, err)
		s := check.Summarize(rep)
		require.NotNil(t, s.Preemptions)
		require.Equal(t, workers > 1, s.Preemptions.ByTiming, "workers=%d", workers)
		require.Equal(t, workers > 1, strings.Contains(s.Preemptions.String(), "may differ between runs"))
	}
}

// Merging sums the shards' matched steps and keeps the largest visited set.
func TestMergeSummariesMatchedAndMemory(t *testing.T) {
	part := func(shard string, matched, mem int64) check.Summary {
		return check.Summary{Protocol: "merged", Atomicity: "gil", Strategy: "states", Scenario: "s",
			Shard: shard, Verdict: "verified", Complete: true, Matched: matched, MemoryBytes: mem}
	}
	got, err := check.MergeSummaries([]check.Summary{part("0/2", 5, 100), part("1/2", 7, 300)})
	require.NoError(t, err)
	require.Equal(t, int64(12), got.Matched)
	require.Equal(t, int64(300), got.MemoryBytes)
}

// The summary gives max_depth where the search measured it, and leaves it
// out where it did not (the parallel stateful searches), rather than
// print a 0 that reads as a measurement; merging keeps the longest part's.
func TestSummaryMaxDepthOnlyWhereMeasured(t *testing.T) {
	p, sc := swapMerged(t), mergedScenario(t, 3)
	tests := []struct {
		strategy string
		workers  int
		measured bool
	}{
		{check.StrategyDFS, 1, true},
		{check.StrategyStates, 1, true},
		{check.StrategyBFS, 1, true},
		{check.StrategyDFS, 2, false},
		{check.StrategyStates, 2, false},
		{check.StrategyAuto, 1, true}, // auto verifies with por over critical sections, on one worker
		{check.StrategyPOR, 1, true},
		{check.StrategyPOR, 2, false},
	}
	for _, tt := range tests {
		rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: tt.strategy, Workers: tt.workers})
		require.NoError(t, err)
		s := check.Summarize(rep)
		var out bytes.Buffer
		require.NoError(t, s.WriteJSON(&out))
		var fields map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(out.Bytes(), &fields))
		if !tt.measured {
			require.Nil(t, s.MaxDepth, "%s, %d workers", tt.strategy, tt.workers)
			require.NotContains(t, fields, "max_depth", "%s, %d workers", tt.strategy, tt.workers)
			continue
		}
		require.NotNil(t, s.MaxDepth, "%s, %d workers", tt.strategy, tt.workers)
		// three threads of one call each take dozens of steps to finish
		// (auto's are critical sections, a with-lock block one step)
		require.Greater(t, *s.MaxDepth, 20, "%s, %d workers", tt.strategy, tt.workers)
		require.Contains(t, fields, "max_depth", "%s, %d workers", tt.strategy, tt.workers)
	}

	part := func(shard string, depth *int) check.Summary {
		return check.Summary{Protocol: "merged", Atomicity: "gil", Strategy: "dfs", Scenario: "s",
			Shard: shard, Verdict: "verified", Complete: true, MaxDepth: depth}
	}
	got, err := check.MergeSummaries([]check.Summary{part("0/3", new(40)), part("1/3", nil), part("2/3", new(55))})
	require.NoError(t, err)
	require.Equal(t, new(55), got.MaxDepth)
	got, err = check.MergeSummaries([]check.Summary{part("0/2", nil), part("1/2", nil)})
	require.NoError(t, err)
	require.Nil(t, got.MaxDepth)
}

// summary.json is read by people: "->" stays "->", not "-\u003e".
func TestSummaryJSONKeepsArrows(t *testing.T) {
	var b strings.Builder
	require.NoError(t, check.Summary{Verdict: "violation", Stopped: "threads 4 -> 2 <&>"}.WriteJSON(&b))
	require.Contains(t, b.String(), `"threads 4 -> 2 <&>"`)
}
