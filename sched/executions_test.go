package sched_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// A search that stops at a failing end state counts the failing execution
// once: here the very first execution fails, so every search reports one.
func TestFailingFirstExecutionCountsOnce(t *testing.T) {
	p := finalFails(toy("w0+1", "r1"), 0, 1) // every execution ends with r0 == 1
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

// A system where no thread can run from the start has one execution (each
// walk is one), of no steps, and its end state is checked.
func TestNothingToRun(t *testing.T) {
	tests := []struct {
		name       string
		s          sched.Strategy
		executions int64 // when nothing fails
	}{
		{"dfs", sched.DFS{}, 1},
		{"states", sched.States{}, 1},
		{"bfs", sched.BFS{}, 1},
		{"dpor", sched.DPOR{}, 1},
		{"bounded", sched.Bounded{MaxPreemptions: 2}, 1},
		{"random", sched.Random{Runs: 10, Chooser: sched.NewSeeded(1)}, 10},
		{"pct", sched.PCT{Depth: 2, Runs: 10, Chooser: sched.NewSeeded(1)}, 10},
		{"parallel", sched.Parallel{Workers: 2}, 1},
	}
	for _, tt := range tests {
		for _, finalFails := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/final fails %v", tt.name, finalFails), func(t *testing.T) {
				p := toy("", "")
				p.FinalCheck = finalFails // r0 == 0 at the end
				res := tt.s.Run(newToy(p), sched.Limits{})
				if !finalFails {
					require.NotEqual(t, sched.Violation, res.Verdict)
					require.Equal(t, tt.executions, res.Stats.Executions)
					return
				}
				require.Equal(t, sched.Violation, res.Verdict)
				require.Equal(t, kindFinal, res.Failure.Kind)
				require.Empty(t, res.Schedule)
				require.Equal(t, int64(1), res.Stats.Executions)
			})
		}
	}
}
