package sched_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// A search that stops at a failing end state counts the failing execution
// once: here the very first execution fails, so every search reports one.
func TestFailingFirstExecutionCountsOnce(t *testing.T) {
	p := finalFails(toy("w0+1", "r1"), 0, 1) // every execution ends with r0 == 1
	for _, tt := range searches {
		s := tt.s
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
	for _, tt := range append(slices.Clone(searches), strategyCase{s: sched.Parallel{Workers: 2}}) {
		for _, finalFails := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/final fails %v", tt.s.Name(), finalFails), func(t *testing.T) {
				p := toy("", "")
				p.FinalCheck = finalFails // r0 == 0 at the end
				res := tt.s.Run(newToy(p), sched.Limits{})
				if !finalFails {
					require.NotEqual(t, sched.Violation, res.Verdict)
					// one execution, or one a walk
					require.Equal(t, max(tt.runs, 1), res.Stats.Executions)
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
