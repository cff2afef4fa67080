package check_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/variants"
)

// explore runs cfg on protocol name with threads threads of one call
// each, under atomicity a.
func explore(t *testing.T, name string, threads int, a model.Atomicity, cfg check.Config) *check.Report {
	t.Helper()
	cfg.Protocol, cfg.Scenario, cfg.Atomicity = protocol(t, name), mergedScenario(t, threads), a
	rep, err := check.Explore(cfg)
	require.NoError(t, err)
	return rep
}

// Every variant registered as buggy: auto's counterexample has the fewest
// preemptions of any, as the bounded search raised from 0 finds them, and
// is the same on every run, whatever the states search's workers found
// first.
func TestAutoFindsTheFewestPreemptions(t *testing.T) {
	for _, name := range registered(variants.Buggy) {
		for _, a := range model.Atomicities() {
			for _, threads := range []int{2, 3} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, a, threads), func(t *testing.T) {
					fewest := explore(t, name, threads, a, check.Config{Strategy: check.StrategyBounded, Preemptions: 10})
					require.Equal(t, sched.Violation, fewest.Result.Verdict)
					auto := explore(t, name, threads, a, check.Config{Workers: 2})
					require.Equal(t, sched.Violation, auto.Result.Verdict)
					require.Equal(t, fewest.Preemptions, auto.Preemptions, "plan %q", auto.Plan)
					require.Len(t, auto.Plan, 3) // states, its rerun on one worker, bounded
					require.Contains(t, auto.Plan[1], "on one worker")
					require.Contains(t, auto.Plan[2], fmt.Sprintf("the fewest, %d", fewest.Preemptions))
					again := explore(t, name, threads, a, check.Config{Workers: 2})
					require.Equal(t, auto.Result.Schedule, again.Result.Schedule)
				})
			}
		}
	}
}

// A correct protocol: auto proves it with the states search alone, and
// does the same work as -strategy states.
func TestAutoProvesWithTheStatesSearchAlone(t *testing.T) {
	auto := explore(t, "merged", 4, model.GIL, check.Config{Workers: 1})
	states := explore(t, "merged", 4, model.GIL, check.Config{Strategy: check.StrategyStates, Workers: 1})
	require.True(t, auto.Verified())
	require.Equal(t, []string{"states (symmetry reduction, 1 workers): verified"}, auto.Plan)
	require.Equal(t, states.Result.Stats.Steps, auto.Result.Stats.Steps)
	require.Equal(t, states.Result.Stats.States, auto.Result.Stats.States)
	require.Equal(t, states.Result.Stats.Executions, auto.Result.Stats.Executions)
}

// When its budget runs out before the bounded search finds a
// counterexample, auto says so and keeps the states search's, shortened
// as every other strategy's is (so the same on every run), with its
// preemptions counted.
func TestAutoKeepsTheStatesCounterexampleWhenItsBudgetRunsOut(t *testing.T) {
	defer check.SetAutoBoundedBudgetForTest(1)() // cut at its first poll
	const threads = 5                            // the bounded search takes 23,235 steps
	auto := explore(t, "naive", threads, model.GIL, check.Config{Workers: 2})
	require.Equal(t, sched.Violation, auto.Result.Verdict)
	require.Len(t, auto.Plan, 3) // states, its rerun on one worker, bounded
	require.Contains(t, auto.Plan[2], "may not be the fewest")
	bfs := explore(t, "naive", threads, model.GIL, check.Config{Strategy: check.StrategyBFS})
	require.Equal(t, bfs.Result.Schedule, auto.Result.Schedule, "shortened")
	require.Equal(t, bfs.Preemptions, auto.Preemptions)
	fewest := explore(t, "naive", threads, model.GIL, check.Config{Strategy: check.StrategyBounded, Preemptions: 10})
	require.GreaterOrEqual(t, auto.Preemptions, fewest.Preemptions)
}

// When the caller stops auto's bounded search (a timeout, Ctrl-C), auto
// keeps the states search's violation and says that its preemptions may
// not be the fewest.
func TestAutoKeepsTheStatesCounterexampleWhenStopped(t *testing.T) {
	// the states search finds the race before it first asks Stop (every
	// sched.PollEvery steps); the bounded search, which takes 23,235
	// steps, does not
	auto := explore(t, "naive", 5, model.GIL, check.Config{Workers: 1, Stop: func() bool { return true }})
	require.Equal(t, sched.Violation, auto.Result.Verdict)
	require.Len(t, auto.Plan, 2, "%q", auto.Plan)
	require.Contains(t, auto.Plan[1], "stopped, so")
	require.NotEmpty(t, auto.Result.Schedule)
}
