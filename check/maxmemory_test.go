package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/check/memory"
	"swapcheck/model"
	"swapcheck/sched"
)

// A search whose process holds more than its memory bound ends
// incomplete, whatever the strategy, and says why and what to do
// instead. The process here "holds" 2 GiB of a 1 GiB bound from the
// start; merged with 5 threads runs well past every search's first poll
// but por's (auto's too), which takes 382 states there, and 12,667 with 32
// threads.
func TestMaxMemoryEndsEverySearchIncomplete(t *testing.T) {
	for _, strategy := range check.Strategies {
		t.Run(strategy, func(t *testing.T) {
			threads := 5
			if strategy == check.StrategyPOR || strategy == check.StrategyAuto {
				threads = 32
			}
			bound := memory.NewForTest(1<<30, func() int64 { return 2 << 30 })
			rep := explore(t, "merged", threads, model.GIL, check.Config{
				Strategy: strategy, Workers: 2, Memory: bound,
				Runs: 100_000, Seed: 1, Depth: 2, Preemptions: 2,
			})
			require.Equal(t, sched.Incomplete, rep.Result.Verdict)
			require.Contains(t, rep.Result.Cut, "-max-memory 1 GiB reached: the process held 2 GiB")
			require.Contains(t, rep.Result.Cut, "-strategy states")
			require.Contains(t, rep.Result.Cut, "-shard")
		})
	}
}

// A visited set that would grow past the bound does not: the search ends
// with the table it has (merged with 5 threads stores 2.87M states, in
// tables up to 32 MiB; the table of 2 MiB fits in the bound, the next, of
// 8 MiB, does not).
func TestMaxMemoryRefusesTheNextTable(t *testing.T) {
	bound := memory.NewForTest(3<<20, func() int64 { return 0 })
	rep := explore(t, "merged", 5, model.GIL, check.Config{Strategy: check.StrategyDFS, Workers: 1, Memory: bound})
	require.Equal(t, sched.Incomplete, rep.Result.Verdict)
	require.Contains(t, rep.Result.Cut, "the visited set's next table takes 8 MiB more")
	require.Equal(t, int64(2<<20), rep.Result.Stats.MemoryBytes)
}
