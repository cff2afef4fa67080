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
					require.Len(t, auto.Plan, 3) // por, its rerun on one worker, bounded
					require.Contains(t, auto.Plan[0], "por")
					require.Contains(t, auto.Plan[1], "on one worker")
					require.Contains(t, auto.Plan[len(auto.Plan)-1], fmt.Sprintf("the fewest, %d", fewest.Preemptions))
					again := explore(t, name, threads, a, check.Config{Workers: 2})
					require.Equal(t, auto.Result.Schedule, again.Result.Schedule)
				})
			}
		}
	}
}

// A correct protocol: auto proves it with one complete search alone,
// and does the same work as that search run by itself: under gil over
// the critical sections (check.Sections, model/reduce_sections.go), under
// gil-breaker -strategy por (persistent sets worked out from macro
// steps), and so for proposed under gil, whose world the sections do not
// cover.
func TestAutoProvesWithOneCompleteSearchAlone(t *testing.T) {
	const sectionsPlan = "por over critical sections (each with-lock block one step; persistent sets, symmetry reduction, 1 worker): verified"
	for _, c := range []struct {
		name      string
		atomicity model.Atomicity
		plan      string
	}{
		{"merged", model.GIL, sectionsPlan},
		{"global-lock", model.GIL, sectionsPlan},
		{"merged", model.GILBreaker, "por (persistent sets, symmetry reduction, 1 worker): verified"},
		{"proposed", model.GIL, "por (persistent sets, symmetry reduction, 1 worker): verified"},
	} {
		auto := explore(t, c.name, 4, c.atomicity, check.Config{Workers: 1})
		require.True(t, auto.Verified())
		require.Equal(t, []string{c.plan}, auto.Plan)
		var alone sched.Result
		if c.plan == sectionsPlan {
			prog, err := model.NewProgram(mergedScenario(t, 4), protocol(t, c.name), c.atomicity)
			require.NoError(t, err)
			alone = sched.POR{}.Run(check.Sections(check.NewSystem(prog)), sched.Limits{})
		} else {
			alone = explore(t, c.name, 4, c.atomicity, check.Config{Strategy: check.StrategyPOR, Workers: 1}).Result
		}
		require.Equal(t, alone.Stats.Steps, auto.Result.Stats.Steps, c.name)
		require.Equal(t, alone.Stats.States, auto.Result.Stats.States, c.name)
		require.Equal(t, alone.Stats.Executions, auto.Result.Stats.Executions, c.name)
	}
}

// When its budget runs out before the bounded search finds a
// counterexample, auto says so and keeps the complete search's, shortened
// as every other strategy's is (so the same on every run), with its
// preemptions counted.
func TestAutoKeepsItsCounterexampleWhenTheBudgetRunsOut(t *testing.T) {
	defer check.SetAutoBoundedBudgetForTest(1)() // cut at its first poll
	const threads = 5                            // the bounded search takes 23,235 steps
	auto := explore(t, "naive", threads, model.GIL, check.Config{Workers: 2})
	require.Equal(t, sched.Violation, auto.Result.Verdict)
	require.Len(t, auto.Plan, 3) // por, its rerun on one worker, bounded
	require.Contains(t, auto.Plan[2], "may not be the fewest")
	bfs := explore(t, "naive", threads, model.GIL, check.Config{Strategy: check.StrategyBFS})
	require.Equal(t, bfs.Result.Schedule, auto.Result.Schedule, "shortened")
	require.Equal(t, bfs.Preemptions, auto.Preemptions)
	fewest := explore(t, "naive", threads, model.GIL, check.Config{Strategy: check.StrategyBounded, Preemptions: 10})
	require.GreaterOrEqual(t, auto.Preemptions, fewest.Preemptions)
}

// When the caller stops auto's bounded search (a timeout, Ctrl-C), auto
// keeps the complete search's violation and says that its preemptions may
// not be the fewest.
func TestAutoKeepsItsCounterexampleWhenStopped(t *testing.T) {
	// the complete search finds the race before it first asks Stop (every
	// sched.PollEvery steps); the bounded search, which takes 23,235
	// steps, does not
	auto := explore(t, "naive", 5, model.GIL, check.Config{Workers: 1, Stop: func() bool { return true }})
	require.Equal(t, sched.Violation, auto.Result.Verdict)
	require.Len(t, auto.Plan, 2, "%q", auto.Plan)
	require.Contains(t, auto.Plan[1], "stopped, so")
	require.NotEmpty(t, auto.Result.Schedule)
}
