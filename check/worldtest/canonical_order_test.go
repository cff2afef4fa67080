package worldtest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// por takes threads in the canonical order (sched.CanonicalOrderer) so
// that its persistent sets, and so its counts, do not depend on which
// state of an orbit a worker reaches first. On one worker and on two, a
// search of a scenario whose orbits are met in a different order must
// count the same; an order by the live parts' numbers, which follow the
// order the search met the parts, must be caught.
func TestPORCountsDoNotDependOnWorkers(t *testing.T) {
	sc, err := scenario.Shape{Threads: 3, Blocks: 1, Calls: 3, Modules: 3, Names: 1, Nest: 1}.Build()
	require.NoError(t, err)
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	counts := func(workers int) [4]int64 {
		rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyPOR, Workers: workers})
		require.NoError(t, err)
		require.True(t, rep.Verified())
		s := rep.Result.Stats
		return [4]int64{s.States, s.Steps, s.Matched, s.Executions}
	}
	differ := func() bool {
		one := counts(1)
		for range 3 {
			if counts(2) != one {
				return true
			}
		}
		return false
	}
	require.False(t, differ(), "por's counts on two workers differ from one's")
	restore := model.OrderByNumberForTest()
	defer restore()
	require.True(t, differ(), "an order by the parts' numbers was not caught")
}
