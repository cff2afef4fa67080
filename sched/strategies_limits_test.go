package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// The limits cut DPOR, Bounded and PCT as they cut the other searches
// (limits_test.go), on a program where every step conflicts, so that DPOR
// too has more executions than the limits allow.

// contended is 4 threads of 8 writes to one register: every order of them
// is its own execution for DPOR, and each runs 32 steps.
var contended = toy(
	"w0+1 w0+1 w0+1 w0+1 w0+1 w0+1 w0+1 w0+1",
	"w0+2 w0+2 w0+2 w0+2 w0+2 w0+2 w0+2 w0+2",
	"w0+3 w0+3 w0+3 w0+3 w0+3 w0+3 w0+3 w0+3",
	"w0+4 w0+4 w0+4 w0+4 w0+4 w0+4 w0+4 w0+4",
)

func newStrategies() []sched.Strategy {
	return []sched.Strategy{
		sched.DPOR{},
		sched.Bounded{MaxPreemptions: 2},
		sched.PCT{Depth: 3, Runs: 1000, Chooser: sched.NewSeeded(7)},
	}
}

func TestNewStrategiesLimitsCut(t *testing.T) {
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
	for _, s := range newStrategies() {
		for _, l := range limits {
			t.Run(s.Name()+"/"+l.name, func(t *testing.T) {
				calls := 0
				lim := l.lim(&calls)
				res := s.Run(newToy(contended), lim)
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

// The limits do not cut a search that fits in them: on wide, whose
// threads never interfere, DPOR runs one execution and Bounded finds that
// the bound never mattered.
func TestNewStrategiesLimitsFit(t *testing.T) {
	tests := []struct {
		s          sched.Strategy
		verdict    sched.Verdict
		executions int64
	}{
		{s: sched.DPOR{}, verdict: sched.Verified, executions: 1},
		{s: sched.Bounded{MaxPreemptions: 2}, verdict: sched.NoViolationFound},
		{s: sched.PCT{Depth: 3, Runs: 1000, Chooser: sched.NewSeeded(7)}, verdict: sched.NoViolationFound, executions: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.s.Name(), func(t *testing.T) {
			calls := 0
			lim := sched.Limits{
				MaxDepth: wideSteps,
				Stop:     func() bool { calls++; return false },
			}
			res := tt.s.Run(newToy(wide), lim)
			require.Equal(t, tt.verdict, res.Verdict, "cut: %q", res.Cut)
			require.True(t, res.Complete)
			require.Equal(t, wideSteps, res.Stats.Depth)
			if tt.executions > 0 {
				require.Equal(t, tt.executions, res.Stats.Executions)
			}
			if res.Stats.Steps >= 1<<12 {
				require.Positive(t, calls, "Stop was never polled in %d steps", res.Stats.Steps)
			}
		})
	}
}

// A failure beyond the step budget is not missed silently.
func TestNewStrategiesMaxDepthHidesFailure(t *testing.T) {
	p := toy("w0+1 w0+1 w0+1", "r1 r1 f0=1")
	for _, s := range newStrategies() {
		t.Run(s.Name(), func(t *testing.T) {
			full := s.Run(newToy(p), sched.Limits{})
			require.Equal(t, sched.Violation, full.Verdict)
			res := s.Run(newToy(p), sched.Limits{MaxDepth: 2})
			require.Equal(t, sched.Incomplete, res.Verdict)
			require.Contains(t, res.Cut, "step budget of 2")
		})
	}
}
