package sched_test

import (
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

// contended is 4 threads of 8 writes to one register: every order of them
// is its own execution for DPOR, and each runs 32 steps.
var contended = toy(
	"w0+1 w0+1 w0+1 w0+1 w0+1 w0+1 w0+1 w0+1",
	"w0+2 w0+2 w0+2 w0+2 w0+2 w0+2 w0+2 w0+2",
	"w0+3 w0+3 w0+3 w0+3 w0+3 w0+3 w0+3 w0+3",
	"w0+4 w0+4 w0+4 w0+4 w0+4 w0+4 w0+4 w0+4",
)

// strategyCase is a strategy and what it does on wide when the limits do
// not cut it. searches is every strategy the toy tests run one by one:
// the limits tests, TestNothingToRun and
// TestFailingFirstExecutionCountsOnce. (Parallel, whose depth and polls
// depend on its workers, is in TestNothingToRun only.)
type strategyCase struct {
	s sched.Strategy
	// runs is a walk strategy's walks (0 for the others)
	runs int64
	// busy has more executions than the limits of TestLimitsCut allow,
	// each wideSteps long. DPOR runs wide, whose threads never interfere,
	// once: it is cut on contended, where every step conflicts.
	busy *program
	// verdict and cut are the verdict and Result.Cut on wide within the
	// limits; executions is the count of executions (0: not checked).
	verdict    sched.Verdict
	cut        string
	executions int64
	// polled: the search runs well over the steps between two polls of
	// Limits.Stop on wide, so Stop must be asked. DPOR runs one execution
	// of 32 steps there.
	polled bool
}

var searches = []strategyCase{
	{s: sched.DFS{}, busy: wide, verdict: sched.Verified, polled: true},
	{s: sched.States{}, busy: wide, verdict: sched.Verified, polled: true},
	{s: sched.BFS{}, busy: wide, verdict: sched.Verified, polled: true},
	{s: sched.Random{Runs: 1000, Chooser: sched.NewSeeded(7)}, runs: 1000, busy: wide, verdict: sched.NoViolationFound, executions: 1000, polled: true},
	{s: sched.DPOR{}, busy: contended, verdict: sched.Verified, executions: 1},
	// The bound matters on wide: Bounded cannot prove it.
	{s: sched.Bounded{MaxPreemptions: 2}, busy: wide, verdict: sched.NoViolationFound, cut: "all schedules with at most 2 preemptions", polled: true},
	{s: sched.PCT{Depth: 3, Runs: 1000, Chooser: sched.NewSeeded(7)}, runs: 1000, busy: wide, verdict: sched.NoViolationFound, executions: 1000, polled: true},
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
	for _, tt := range searches {
		for _, l := range limits {
			t.Run(tt.s.Name()+"/"+l.name, func(t *testing.T) {
				calls := 0
				lim := l.lim(&calls)
				res := tt.s.Run(newToy(tt.busy), lim)
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
	for _, tt := range searches {
		t.Run(tt.s.Name(), func(t *testing.T) {
			calls := 0
			lim := sched.Limits{
				MaxDepth: wideSteps,
				Stop:     func() bool { calls++; return false },
			}
			res := tt.s.Run(newToy(wide), lim)
			require.Equal(t, tt.verdict, res.Verdict, "cut: %q", res.Cut)
			require.Equal(t, tt.s.Exhaustive(), res.Verdict == sched.Verified, "only the exhaustive searches prove wide")
			require.True(t, res.Complete)
			require.Equal(t, tt.cut, res.Cut)
			require.Equal(t, wideSteps, res.Stats.Depth)
			if tt.executions > 0 {
				require.Equal(t, tt.executions, res.Stats.Executions)
			}
			if tt.polled || res.Stats.Steps >= 1<<12 {
				require.Positive(t, calls, "Stop was never polled in %d steps", res.Stats.Steps)
			}
		})
	}
}

// A failure that lies beyond the step budget is neither found nor missed
// silently: the verdict is Incomplete, never Verified.
func TestMaxDepthHidesFailure(t *testing.T) {
	p := toy("w0+1 w0+1 w0+1", "r1 r1 f0=1")
	for _, tt := range searches {
		t.Run(tt.s.Name(), func(t *testing.T) {
			full := tt.s.Run(newToy(p), sched.Limits{})
			require.Equal(t, sched.Violation, full.Verdict)
			res := tt.s.Run(newToy(p), sched.Limits{MaxDepth: 2})
			require.Equal(t, sched.Incomplete, res.Verdict)
			require.False(t, res.Complete)
			require.Contains(t, res.Cut, "step budget of 2")
		})
	}
}

// The depth-first searches cut at exactly MaxExecutions executions, not
// one more, however many steps lie between two of them.
func TestMaxExecutionsIsExactInDepthFirst(t *testing.T) {
	for _, s := range []sched.Strategy{sched.DFS{}, sched.States{}} {
		total := s.Run(newToy(wide), sched.Limits{}).Stats.Executions
		for _, n := range []int64{1, 2, 5, 17, 100, total - 1} {
			require.Less(t, n, total, "%s: the search must have more executions than %d", s.Name(), n)
			res := s.Run(newToy(wide), sched.Limits{MaxExecutions: n})
			require.Equal(t, sched.Incomplete, res.Verdict, "%s, %d", s.Name(), n)
			require.Equal(t, n, res.Stats.Executions, "%s, %d", s.Name(), n)
		}
	}
}

// On several workers MaxExecutions holds within one execution per
// worker: each adds its executions to the run's count as they end.
func TestMaxExecutionsOnSeveralWorkers(t *testing.T) {
	for _, workers := range []int{2, 4} {
		s := sched.Parallel{Workers: workers}
		total := s.Run(newToy(wide), sched.Limits{}).Stats.Executions
		for _, n := range []int64{1, 2, 10, 100} {
			require.Less(t, n, total)
			res := s.Run(newToy(wide), sched.Limits{MaxExecutions: n})
			require.Equal(t, sched.Incomplete, res.Verdict, "%d workers, %d", workers, n)
			require.GreaterOrEqual(t, res.Stats.Executions, n, "%d workers, %d", workers, n)
			require.LessOrEqual(t, res.Stats.Executions, n+int64(workers), "%d workers, %d: more than one execution per worker past the limit", workers, n)
		}
	}
}
