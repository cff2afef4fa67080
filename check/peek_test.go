package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// A search on a program whose memo already holds a failing step (met by
// an earlier search, or by another worker) peeks at it (sched.WordPeeker)
// and must still fail there: every protocol's depth-first search from a
// warm memo reports what it reports from a cold one.
func TestPeekedStepsStillFail(t *testing.T) {
	sc, err := scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}.Build()
	require.NoError(t, err)
	violations := 0
	for _, p := range check.Protocols() {
		for _, a := range model.Atomicities() {
			prog, err := model.NewProgram(sc, p, a)
			require.NoError(t, err)
			cold := sched.DFS{}.Run(check.NewSystem(prog), sched.Limits{})
			warm := sched.DFS{}.Run(check.NewSystem(prog), sched.Limits{})
			require.Equal(t, cold.Verdict, warm.Verdict, "%s/%s", p.Name, a)
			require.Equal(t, cold.Schedule, warm.Schedule, "%s/%s", p.Name, a)
			require.Equal(t, cold.Stats, warm.Stats, "%s/%s", p.Name, a)
			if cold.Verdict == sched.Violation {
				violations++
				require.Equal(t, cold.Failure.Kind, warm.Failure.Kind, "%s/%s", p.Name, a)
			}
		}
	}
	require.NotZero(t, violations, "no protocol failed: the test checks nothing")
}
