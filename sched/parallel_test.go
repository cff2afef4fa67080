package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// A parallel search finds what the sequential one finds, and a finished
// one counts the same states, steps, matches and executions whatever the
// number of workers.
func TestParallelMatchesDFS(t *testing.T) {
	shapes := []model.Shape{
		{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Syncthreads: true},
	}
	for _, p := range check.Protocols() {
		for _, sh := range shapes {
			for _, a := range []model.Atomicity{model.GIL, model.FreeThreaded} {
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
