package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// A parallel search finds what the sequential one finds, and a finished
// one counts the same states, steps, matches and executions whatever the
// number of workers.
func TestParallelMatchesDFS(t *testing.T) {
	shapes := []scenario.Shape{
		{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Syncthreads: true},
	}
	for _, p := range check.Protocols() {
		for _, sh := range shapes {
			for _, a := range model.Atomicities() {
				sc, err := sh.Build()
				require.NoError(t, err)
				prog, err := model.NewProgram(sc, p, a)
				require.NoError(t, err)
				want := sched.DFS{}.Run(check.NewSystem(prog), sched.Limits{})
				for _, workers := range []int{1, 2, 4} {
					got := sched.Parallel{Workers: workers}.Run(check.NewSystem(prog), sched.Limits{})
					require.Equal(t, want.Verdict, got.Verdict, "%s %+v %s workers=%d", p.Name, sh, a, workers)
					if want.Verdict == sched.Violation {
						replayed, err := sched.Replay(check.NewSystem(prog), got.Schedule, sched.Limits{})
						require.NoError(t, err)
						require.Equal(t, got.Failure.Kind, replayed.Failure.Kind)
						continue
					}
					require.Equal(t, want.Stats.States, got.Stats.States, "states, workers=%d", workers)
					require.Equal(t, want.Stats.Steps, got.Stats.Steps, "steps, workers=%d", workers)
					require.Equal(t, want.Stats.Matched, got.Stats.Matched, "matched, workers=%d", workers)
					require.Equal(t, want.Stats.Executions, got.Stats.Executions, "executions, workers=%d", workers)
				}
			}
		}
	}
}

// Shards of a search together find what the whole search finds: every
// shard's verdict is verified exactly when the whole is, and a violation
// is found by at least one shard.
func TestShardsCoverTheSearch(t *testing.T) {
	sh := scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}
	for _, p := range check.Protocols() {
		sc, err := sh.Build()
		require.NoError(t, err)
		prog, err := model.NewProgram(sc, p, model.GIL)
		require.NoError(t, err)
		whole := sched.DFS{}.Run(check.NewSystem(prog), sched.Limits{})
		for _, n := range []int{2, 3} {
			found := false
			var states int64
			for i := range n {
				part := sched.Parallel{Workers: 1, Shard: i, Shards: n}.Run(check.NewSystem(prog), sched.Limits{})
				if whole.Verdict == sched.Verified {
					require.Equal(t, sched.Verified, part.Verdict, "%s shard %d/%d", p.Name, i, n)
					states += part.Stats.States
				}
				found = found || part.Verdict == sched.Violation
			}
			require.Equal(t, whole.Verdict == sched.Violation, found, "%s with %d shards", p.Name, n)
			if whole.Verdict == sched.Verified {
				require.GreaterOrEqual(t, states, whole.Stats.States, "the shards' states cover the whole's")
			}
		}
	}
}
