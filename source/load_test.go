package source_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// TestLoadsAFileThatNeverNamesNumba: the set-up binds numba.cuda in
// sys.modules whether or not the file names numba (pyvm.State.SetModule
// interns the package names itself), and a swap that swaps nothing is
// caught at its first use.
func TestLoadsAFileThatNeverNamesNumba(t *testing.T) {
	p := load(t, pyvm.V312, "testdata/no_swap.py", scenario.DefaultShape, model.GIL)
	r := sched.States{}.Run(source.New(p), sched.Limits{})
	require.Equal(t, sched.Violation, r.Verdict)
	require.Equal(t, source.KindUseSawReal, r.Failure.Kind)
}

// TestShrinkFindsTheSmallestScenario: a counterexample on a larger world
// shrinks to the smallest one with the same kind, and what shrank is
// said; a smallest world shrinks nothing.
func TestShrinkFindsTheSmallestScenario(t *testing.T) {
	big := scenario.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1}
	src := sourceOf(t, pyvm.V312, "../testdata/python/refcount_del.py")
	sh, p, res, shrunk := source.Shrink(src, big, model.GIL, source.KindException, sched.Limits{})
	require.Equal(t, []string{"threads 3 -> 2", "calls 2 -> 1", "modules 2 -> 1"}, shrunk)
	require.Equal(t, scenario.DefaultShape, sh)
	require.Equal(t, sched.Violation, res.Verdict)
	_, f := source.Run(p, res.Schedule)
	require.Equal(t, source.KindException, f.Kind)

	sh, _, _, shrunk = source.Shrink(src, scenario.DefaultShape, model.GIL, source.KindException, sched.Limits{})
	require.Empty(t, shrunk)
	require.Equal(t, scenario.DefaultShape, sh)
}

// TestKindsAreCheckKinds: the kinds this package reports are check's
// names for the same violations.
func TestKindsAreCheckKinds(t *testing.T) {
	require.Equal(t, check.KindUseSawReal, source.KindUseSawReal)
	require.Equal(t, check.KindUseSawNone, source.KindUseSawNone)
	require.Equal(t, check.KindUseSawOtherFake, source.KindUseSawOtherFake)
	require.Equal(t, check.KindException, source.KindException)
	require.Equal(t, check.KindLeftSwapped, source.KindLeftSwapped)
	require.Equal(t, check.KindRegistryLeft, source.KindRegistryLeft)
	require.NotContains(t, check.Kinds, source.KindModelGap, "model-gap is no violation")
}
