package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/naive"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/swap"
)

// TestShrinkerTakesNoCutSearch: a search of the shrinker that is cut
// (here by a stop at its first poll) finds nothing to take, though it
// finds the kind when it runs to the end; the cut is counted. (A
// breadth-first search, which reaches refcount-del's counterexample
// after thousands of steps, long after the first poll.)
func TestShrinkerTakesNoCutSearch(t *testing.T) {
	sh := scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}
	sc, err := sh.Build()
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		stop func() bool
		ok   bool
		cut  int
	}{
		{"runs to the end", nil, true, 0},
		{"cut", func() bool { return true }, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &shrinker{cfg: Config{Protocol: swap.RefcountDel, Atomicity: model.GIL}, kind: KindException,
				lim: sched.Limits{Stop: tc.stop}, sh: &Shrinking{}, tried: map[string]found{}}
			prog, err := model.NewProgram(sc, swap.RefcountDel, model.GIL)
			require.NoError(t, err)
			f := s.search(prog, sched.BFS{}, -1)
			require.Equal(t, tc.ok, f.ok)
			require.Equal(t, tc.cut, s.sh.Cut)
			require.Equal(t, 1, s.sh.Searches)
		})
	}
}

// TestAimedBoundsPreemptions: a breadth-first search of the aimed system
// under a bound finds the shortest counterexample with at most that
// many preemptions, and none below the fewest (naive's race takes two).
func TestAimedBoundsPreemptions(t *testing.T) {
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, naive.Protocol, model.GIL)
	require.NoError(t, err)
	for bound, want := range []sched.Verdict{sched.Verified, sched.Verified, sched.Violation, sched.Violation} {
		res := sched.BFS{}.Run(newAimed(NewSystem(prog), KindUseSawReal, Harmful, bound), sched.Limits{})
		require.Equal(t, want, res.Verdict, "bound %d", bound)
		if want == sched.Violation {
			require.Equal(t, KindUseSawReal, res.Failure.Kind)
			require.LessOrEqual(t, sched.CountPreemptions(NewSystem(prog), res.Schedule), bound)
			require.True(t, replaysTo(prog, res.Schedule, KindUseSawReal))
		}
	}
	// aimed at a kind naive's race does not break, it finds nothing
	res := sched.States{}.Run(newAimed(NewSystem(prog), KindException, Harmful, -1), sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict)
}

// TestAimedFindsTheKindBehindAnother: where a search finds one kind
// first, the aimed search finds the other kind the scenario has
// (refcount-unregistered, free-threaded-overwrite, two threads: both an
// exception and a use of the real module).
func TestAimedFindsTheKindBehindAnother(t *testing.T) {
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, swap.RefcountUnregistered, model.FreeThreadedOverwrite)
	require.NoError(t, err)
	first := sched.States{}.Run(NewSystem(prog), sched.Limits{})
	require.Equal(t, sched.Violation, first.Verdict)
	other := map[string]string{KindException: KindUseSawReal, KindUseSawReal: KindException}[first.Failure.Kind]
	require.NotEmpty(t, other, "found %s first", first.Failure.Kind)
	for _, strat := range []sched.Strategy{sched.States{}, sched.Bounded{MaxPreemptions: 8}, sched.BFS{}} {
		res := strat.Run(newAimed(NewSystem(prog), other, Harmful, -1), sched.Limits{})
		require.Equal(t, sched.Violation, res.Verdict, strat.Name())
		require.Equal(t, other, res.Failure.Kind, strat.Name())
		require.True(t, replaysTo(prog, res.Schedule, other), strat.Name())
	}
}

// replaysTo reports whether schedule, replayed on prog as -replay does,
// fails with a harmful violation of kind.
func replaysTo(prog *model.Program, schedule []sched.ThreadID, kind string) bool {
	s := &shrinker{cfg: Config{Scope: ScopeHarmful}, kind: kind, harm: Harmful}
	return s.replaysTo(prog, schedule)
}
