package sched_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// wide is 4 threads of 8 ops each that never interfere: 9^4 states, every
// execution exactly 32 steps, well over the few thousand steps between two
// polls of Limits.Stop.
var wide = toy(
	"r0 r0 r0 r0 r0 r0 r0 r0",
	"r1 r1 r1 r1 r1 r1 r1 r1",
	"r2 r2 r2 r2 r2 r2 r2 r2",
	"r3 r3 r3 r3 r3 r3 r3 r3",
)

const wideSteps = 32

func strategies() []sched.Strategy {
	return []sched.Strategy{
		sched.DFS{},
		sched.BFS{},
		sched.Random{Runs: 1000, Chooser: sched.NewSeeded(7)},
	}
}

// finished is the verdict a strategy gives when it ends without a cut.
func finished(s sched.Strategy) sched.Verdict {
	if s.Exhaustive() {
		return sched.Verified
	}
	return sched.NoViolationFound
}

func TestLimitsCut(t *testing.T) {
	limits := []struct {
		name string
		lim  func(calls *int) sched.Limits
		cut  string
	}{
		{
			name: "max executions",
			lim:  func(*int) sched.Limits { return sched.Limits{MaxExecutions: 5} },
			cut:  "max-executions 5 reached",
		},
		{
			name: "stop",
			lim: func(calls *int) sched.Limits {
				return sched.Limits{Stop: func() bool { *calls++; return true }}
			},
			cut: "stopped",
		},
		{
			name: "max depth",
			lim:  func(*int) sched.Limits { return sched.Limits{MaxDepth: wideSteps - 1} },
			cut:  "step budget of 31",
		},
	}
	for _, s := range strategies() {
		for _, l := range limits {
			t.Run(s.Name()+"/"+l.name, func(t *testing.T) {
				calls := 0
				lim := l.lim(&calls)
				res := s.Run(newToy(wide), lim)
				require.Equal(t, sched.Incomplete, res.Verdict, "cut: %q", res.Cut)
				require.False(t, res.Complete)
				require.Contains(t, res.Cut, l.cut)
				require.Nil(t, res.Failure)
				if lim.MaxExecutions > 0 {
					require.GreaterOrEqual(t, res.Stats.Executions, lim.MaxExecutions)
				}
				if lim.Stop != nil {
					require.Equal(t, 1, calls, "Stop is asked until it says stop, and not again")
				}
			})
		}
	}
}

// The limits do not cut a search that fits in them.
func TestLimitsFit(t *testing.T) {
	for _, s := range strategies() {
		t.Run(s.Name(), func(t *testing.T) {
			calls := 0
			lim := sched.Limits{
				MaxDepth: wideSteps,
				Stop:     func() bool { calls++; return false },
			}
			res := s.Run(newToy(wide), lim)
			require.Equal(t, finished(s), res.Verdict, "cut: %q", res.Cut)
			require.True(t, res.Complete)
			require.Empty(t, res.Cut)
			require.Equal(t, wideSteps, res.Stats.Depth)
			require.Positive(t, calls, "Stop was never polled in %d steps", res.Stats.Steps)
		})
	}
}

// A failure that lies beyond the step budget is neither found nor missed
// silently: the verdict is Incomplete, never Verified.
func TestMaxDepthHidesFailure(t *testing.T) {
	p := toy("w0+1 w0+1 w0+1", "r1 r1 f0=1")
	for _, s := range strategies() {
		t.Run(s.Name(), func(t *testing.T) {
			full := s.Run(newToy(p), sched.Limits{})
			require.Equal(t, sched.Violation, full.Verdict)
			res := s.Run(newToy(p), sched.Limits{MaxDepth: 2})
			require.Equal(t, sched.Incomplete, res.Verdict)
			require.False(t, res.Complete)
			require.True(t, strings.Contains(res.Cut, "step budget of 2"), res.Cut)
		})
	}
}
