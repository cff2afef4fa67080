package check_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// TestUnrealSwitches: the counterexample of every buggy variant under
// gil-breaker switches threads only where CPython 3.11 can, and so does
// its trace; under gil, refcount-del's shortest counterexample switches
// right after "del _swap_refcount[gid]", where 3.11 keeps the GIL, and
// its trace marks that switch.
func TestUnrealSwitches(t *testing.T) {
	sc := mergedScenario(t, 2)
	unreal := func(t *testing.T, name string, a model.Atomicity) (int, []check.TraceStep, string) {
		rep, err := check.Explore(check.Config{Protocol: protocol(t, name), Scenario: sc, Atomicity: a, Strategy: check.StrategyDFS})
		require.NoError(t, err)
		require.Equal(t, sched.Violation, rep.Result.Verdict)
		steps, err := check.Steps(rep.Program, rep.Result.Schedule)
		require.NoError(t, err)
		_, n := check.UnrealSwitchesForTest(steps)
		var b strings.Builder
		require.NoError(t, check.WriteTrace(&b, rep, "repro"))
		return n, steps, b.String()
	}
	for _, name := range []string{"naive", "refcount-unregistered", "refcount-del"} {
		t.Run(name, func(t *testing.T) {
			n, _, trace := unreal(t, name, model.GILBreaker)
			require.Zero(t, n, "gil-breaker's counterexample switches where 3.11 cannot:\n%s", trace)
			require.NotContains(t, trace, "CPython 3.11 cannot make")
		})
	}
	n, steps, trace := unreal(t, "refcount-del", model.GIL)
	require.Positive(t, n, "gil's counterexample of refcount-del:\n%s", trace)
	marks, _ := check.UnrealSwitchesForTest(steps)
	first := -1
	for i, m := range marks {
		if m {
			first = i
			break
		}
	}
	require.Equal(t, "del _swap_refcount[gid]", steps[first-1].Event.Text, "the step before the first unreal switch")
	require.True(t, steps[first-1].Event.KeepsGIL())
	require.NotEqual(t, steps[first-1].Thread, steps[first].Thread)
	require.Contains(t, trace, "~ marks a thread switch CPython 3.11 cannot make")
}

// TestFreeThreadedOnlyIsSaid: refcount-unregistered's counterexample
// under free-threaded-overwrite splits a defaultdict miss between two
// threads, a switch no GIL build makes, and its trace says so; its
// counterexamples under gil and free-threaded, and naive's under
// free-threaded-overwrite, need no such switch, and theirs do not.
func TestFreeThreadedOnlyIsSaid(t *testing.T) {
	sc := mergedScenario(t, 2)
	trace := func(name string, a model.Atomicity) *check.Trace {
		rep, err := check.Explore(check.Config{Protocol: protocol(t, name), Scenario: sc, Atomicity: a, Strategy: check.StrategyDFS})
		require.NoError(t, err)
		require.Equal(t, sched.Violation, rep.Result.Verdict)
		tr, err := check.NewTrace(rep, "repro")
		require.NoError(t, err)
		return tr
	}
	tr := trace("refcount-unregistered", model.FreeThreadedOverwrite)
	require.Regexp(t, `^needs a free-threaded build: T\d's defaultdict miss at step \d+ \(refcount_unregistered\.py:22\) is split from its __missing__ by T\d's step \d+`, tr.FreeThreadedOnly)
	var text strings.Builder
	require.NoError(t, tr.WriteText(&text))
	require.Contains(t, text.String(), "needs a free-threaded build")
	for _, c := range []struct {
		name string
		a    model.Atomicity
	}{{"refcount-unregistered", model.GIL}, {"refcount-unregistered", model.FreeThreaded}, {"naive", model.FreeThreadedOverwrite}} {
		require.Empty(t, trace(c.name, c.a).FreeThreadedOnly, "%s under %s", c.name, c.a)
	}
}
