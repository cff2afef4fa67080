package bugreport

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// TestNoRealTraceSaysWhy: when the search under gil-breaker ends without
// a violation of the gil trace's kind, the report keeps the gil trace and
// says which switch 3.11 cannot make, and what the search under
// gil-breaker showed: here it is cut after one execution, which proves
// nothing, and the report must not claim that 3.11 cannot fail.
func TestNoRealTraceSaysWhy(t *testing.T) {
	p, err := check.Lookup("refcount-del")
	require.NoError(t, err)
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	r, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS})
	require.NoError(t, err)
	r.Config.MaxExecutions = 1
	real, err := preferReal(r)
	require.NoError(t, err)
	require.Same(t, r, real.report, "the gil trace is kept")
	require.Contains(t, real.note, "This trace keeps 2 switches CPython 3.11 cannot make (marked `~`): at step 40 T1 takes over from T0, whose step 39 (`refcount_del.py:44  del _swap_refcount[gid]`) reached no eval-breaker check")
	require.Contains(t, real.note, "this proves nothing), so whether 3.11 can fail this way is not known.")
	require.NotContains(t, real.note, "verified")
}
