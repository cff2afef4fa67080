package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// The stateful searches (DFS and BFS, each with a visited set) are checked
// against the reference enumeration (helpers_test.go) on small random toy
// programs.

func TestSearchesAgreeWithEnumeration(t *testing.T) {
	var verified, violations, tolerantCompared int
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram(t)
		t.Logf("program: %s", p)
		refRec, ref := reference(newToy(p), false)
		tolRec, tol := reference(newToy(p), true)
		if len(ref.kinds) == 0 {
			verified++
		} else {
			violations++
		}
		if !tol.kinds[sched.KindDeadlock] {
			tolerantCompared++
		}
		for _, copying := range []bool{false, true} {
			name := func(s string) string {
				if copying {
					return s + " (recycling states)"
				}
				return s
			}

			// Failures end the search: all must agree on whether one exists.
			dfsRec, dfs := search(sched.DFS{}, p, false, copying)
			bfsRec, bfs := search(sched.BFS{}, p, false, copying)
			if len(ref.kinds) == 0 {
				for s, r := range map[string]sched.Result{"dfs": dfs, "bfs": bfs} {
					require.Equal(t, sched.Verified, r.Verdict, "%s: %+v", name(s), r.Failure)
					require.True(t, r.Complete, name(s))
				}
				want := sorted(refRec.finals)
				require.NotEmpty(t, want)
				require.Equal(t, want, sorted(dfsRec.finals), "%s final states", name("dfs"))
				require.Equal(t, want, sorted(bfsRec.finals), "%s final states", name("bfs"))
			} else {
				for s, r := range map[string]sched.Result{"dfs": dfs, "bfs": bfs} {
					require.Equal(t, sched.Violation, r.Verdict, "%s: the reference found %v", name(s), sorted(ref.kinds))
					require.False(t, r.Complete, name(s))
					require.Contains(t, ref.kinds, r.Failure.Kind, name(s))
					requireReplays(t, p, name(s), r)
				}
				require.LessOrEqual(t, len(bfs.Schedule), len(dfs.Schedule),
					"%s %v (%s) is longer than dfs %v (%s)", name("bfs"), bfs.Schedule, bfs.Failure.Kind, dfs.Schedule, dfs.Failure.Kind)
				require.Equal(t, ref.shortest, len(bfs.Schedule),
					"%s %v (%s) is not a shortest counterexample", name("bfs"), bfs.Schedule, bfs.Failure.Kind)
			}

			// Failures hidden (tolerant recorders): every transition is
			// visited, so the searches must see the same set of failure kinds
			// and end states as the reference. Only a deadlock, which the
			// scheduler itself reports, still ends the search.
			dfsRec, dfs = search(sched.DFS{}, p, true, copying)
			bfsRec, bfs = search(sched.BFS{}, p, true, copying)
			if tol.kinds[sched.KindDeadlock] {
				for s, r := range map[string]sched.Result{"dfs": dfs, "bfs": bfs} {
					require.Equal(t, sched.Violation, r.Verdict, name(s))
					require.Equal(t, sched.KindDeadlock, r.Failure.Kind, name(s))
				}
			} else {
				require.Equal(t, sched.Verified, dfs.Verdict, name("dfs"))
				require.Equal(t, sched.Verified, bfs.Verdict, name("bfs"))
				require.Equal(t, sorted(tol.kinds), sorted(dfsRec.kinds), "%s failure kinds", name("dfs"))
				require.Equal(t, sorted(tol.kinds), sorted(bfsRec.kinds), "%s failure kinds", name("bfs"))
				require.Equal(t, sorted(tolRec.finals), sorted(dfsRec.finals), "%s final states", name("dfs"))
				require.Equal(t, sorted(tolRec.finals), sorted(bfsRec.finals), "%s final states", name("bfs"))
			}
		}

		// Random walks: a seed fixes the result.
		seed := rapid.Uint64().Draw(t, "seed")
		walks := func() sched.Result {
			return sched.Random{Runs: 20, Chooser: sched.NewSeeded(seed)}.Run(newToy(p), sched.Limits{})
		}
		first := walks()
		require.Equal(t, first, walks(), "two runs with seed %d", seed)
		if first.Verdict == sched.Violation {
			require.Contains(t, ref.kinds, first.Failure.Kind)
			requireReplays(t, p, "random", first)
		} else {
			require.Equal(t, sched.NoViolationFound, first.Verdict)
			require.True(t, first.Complete)
		}
	})
	t.Logf("programs: %d verified, %d with a violation; %d compared with failures hidden", verified, violations, tolerantCompared)
}

// TestBFSShortest is the smallest program on which BFS once returned a
// counterexample one step longer than the shortest: it expanded a state at
// depth 3 whose step fails (4 steps) before it dequeued a deadlocked state
// at the same depth (3 steps).
func TestBFSShortest(t *testing.T) {
	p := toy("a0 r0 u0 u0", "r0 r0 a0")
	_, ref := reference(newToy(p), false)
	require.Equal(t, 3, ref.shortest)
	res := sched.BFS{}.Run(newToy(p), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	require.Len(t, res.Schedule, ref.shortest, "bfs %v (%s)", res.Schedule, res.Failure.Kind)
	requireReplays(t, p, "bfs", res)
}

func TestDeadlockLockOrder(t *testing.T) {
	p := toy("a0 a1 u1 u0", "a1 a0 u0 u1")
	strategies := []sched.Strategy{
		sched.DFS{},
		sched.BFS{},
		sched.Random{Runs: 100, Chooser: sched.NewSeeded(1)},
	}
	for _, s := range strategies {
		t.Run(s.Name(), func(t *testing.T) {
			res := s.Run(newToy(p), sched.Limits{})
			require.Equal(t, sched.Violation, res.Verdict)
			require.Equal(t, sched.KindDeadlock, res.Failure.Kind)
			require.Equal(t, sched.ThreadID(-1), res.Failure.Thread)
			require.Len(t, res.Schedule, 2, "each thread takes its first lock: %v", res.Schedule)
			requireReplays(t, p, s.Name(), res)
		})
	}
}
