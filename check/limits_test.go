package check_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// A -max-executions that a search reaches makes it incomplete, whatever
// the strategy and however many workers run it: merged with 2 threads
// has more executions than 1 on every strategy, and no violation.
func TestMaxExecutionsReachedIsIncomplete(t *testing.T) {
	for _, strategy := range check.Strategies {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/%d workers", strategy, workers), func(t *testing.T) {
				// proposed: its world is no critical sections' (where
				// merged's proof is one execution)
				rep := explore(t, "proposed", 2, model.GIL, check.Config{
					Strategy: strategy, Workers: workers, MaxExecutions: 1,
					Runs: 100, Seed: 1, Depth: 2, Preemptions: 2,
				})
				require.Equal(t, sched.Incomplete, rep.Result.Verdict, "cut %q after %d executions", rep.Result.Cut, rep.Result.Stats.Executions)
				require.Contains(t, rep.Result.Cut, "max-executions 1 reached")
			})
		}
	}
}
