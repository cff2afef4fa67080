package source_test

import (
	"testing"

	"github.com/stretchr/testify/require"

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
