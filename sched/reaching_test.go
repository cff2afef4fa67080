package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// TestReaching: in a toy program where one order fails an assertion and
// the other deadlocks, a plain search stops at the one it meets first;
// Reaching's complete search meets both, and NewAiming's stops at the
// kind asked for, or proves it unreachable.
func TestReaching(t *testing.T) {
	p := toy("w0+1", "f0=1 a0 a0")
	plain := sched.States{}.Run(newToy(p), sched.Limits{})
	require.Equal(t, sched.Violation, plain.Verdict)

	r := sched.NewReaching(newToy(p))
	res := sched.States{}.Run(r, sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict)
	require.Equal(t, []string{kindAssert, sched.KindDeadlock}, r.Kinds())

	for _, kind := range []string{kindAssert, sched.KindDeadlock} {
		res := sched.States{}.Run(sched.NewAiming(newToy(p), kind), sched.Limits{})
		require.Equal(t, sched.Violation, res.Verdict, kind)
		require.Equal(t, kind, res.Failure.Kind)
	}
	res = sched.States{}.Run(sched.NewAiming(newToy(p), kindRelease), sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict, "no release of an unheld lock is reachable")
}

// TestReachingFuturesReachesEveryKind: POR's search of a toy through
// ReachingFutures meets every kind the states search meets through
// Reaching.
func TestReachingFuturesReachesEveryKind(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genSymProgram(t)
		all := sched.NewReaching(newToy(p))
		require.Equal(t, sched.Verified, sched.States{}.Run(all, sched.Limits{}).Verdict)
		red := sched.NewReachingFutures(newToy(p))
		require.Equal(t, sched.Verified, sched.POR{}.Run(red, sched.Limits{}).Verdict)
		require.Equal(t, all.Kinds(), red.Kinds(), "program %s", p)
	})
}
