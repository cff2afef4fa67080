package check_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// The counterexample of a search on several workers is the one the same
// search on one worker finds, on every run, whichever worker found one
// first: here before any shortening (which would hide the choice where
// its breadth-first search finishes, as it does on these small
// scenarios).
func TestCounterexampleIsTheOneOneWorkerFinds(t *testing.T) {
	defer check.NoShortenForTest()()
	for _, name := range []string{"naive", "refcount-unregistered", "refcount-del"} {
		for _, strategy := range []string{check.StrategyAuto, check.StrategyStates, check.StrategyDFS} {
			t.Run(fmt.Sprintf("%s/%s", name, strategy), func(t *testing.T) {
				one := explore(t, name, 4, model.FreeThreaded, check.Config{Strategy: strategy, Workers: 1})
				require.Equal(t, sched.Violation, one.Result.Verdict)
				for _, workers := range []int{2, 4, 4} {
					many := explore(t, name, 4, model.FreeThreaded, check.Config{Strategy: strategy, Workers: workers})
					require.Equal(t, one.Result.Schedule, many.Result.Schedule, "%d workers, plan %q", workers, many.Plan)
					require.Equal(t, one.Result.Failure, many.Result.Failure)
				}
			})
		}
	}
}

// When the search on one worker finds nothing within its budget, the
// counterexample the workers found stands, and the plan says it may
// differ between runs.
func TestCounterexampleOfTheWorkersStandsWhenOneWorkerRunsOutOfBudget(t *testing.T) {
	defer check.SetCanonicalBudgetForTest(1)() // cut at its first poll
	defer check.NoShortenForTest()()
	// one worker's depth-first search takes 1,766 steps to its
	// counterexample, more than it takes before its first poll (a step
	// of so large a state counts as several: see sched.Limits)
	sc, err := scenario.Shape{Threads: 32, Blocks: 2, Calls: 1, Modules: 1, Names: 1}.Build()
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: protocol(t, "refcount-del"), Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS, Workers: 2})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, rep.Result.Verdict)
	require.NotEmpty(t, rep.Result.Schedule)
	require.Len(t, rep.Plan, 1)
	require.Contains(t, rep.Plan[0], "may differ between runs")
}
