package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// A search that stops at a failing end state counts the failing execution
// once: here the very first execution fails, so every search reports one.
func TestFailingFirstExecutionCountsOnce(t *testing.T) {
	p := toy("w0+1", "r1")
	p.FinalCheck, p.FinalReg, p.FinalV = true, 0, 1 // every execution ends with r0 == 1
	for _, s := range []sched.Strategy{
		sched.DFS{}, sched.States{}, sched.BFS{}, sched.DPOR{},
		sched.Bounded{MaxPreemptions: 2},
		sched.Random{Runs: 10, Chooser: sched.NewSeeded(1)},
		sched.PCT{Depth: 2, Runs: 10, Chooser: sched.NewSeeded(1)},
	} {
		t.Run(s.Name(), func(t *testing.T) {
			res := s.Run(newToy(p), sched.Limits{})
			require.Equal(t, sched.Violation, res.Verdict)
			require.Equal(t, kindFinal, res.Failure.Kind)
			require.Equal(t, int64(1), res.Stats.Executions)
		})
	}
}
