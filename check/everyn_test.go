package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// search is the explicit search's verdict at n threads, and its failure.
func search(t *testing.T, p *model.Protocol, a model.Atomicity, n int) (sched.Verdict, *sched.Failure) {
	t.Helper()
	sh := scenario.DefaultShape
	sh.Threads = n
	sc, err := sh.Build()
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: a, Strategy: check.StrategyAuto})
	require.NoError(t, err)
	return rep.Result.Verdict, rep.Result.Failure
}

// The buggy variants are refuted at the smallest N the explicit search
// fails at, with its kind.
func TestEveryNRefutesAtSmallestN(t *testing.T) {
	for _, name := range []string{"naive", "refcount-unregistered", "refcount-del"} {
		t.Run(name, func(t *testing.T) {
			p, err := check.Lookup(name)
			require.NoError(t, err)
			res, err := check.ProveEveryN(check.EveryNConfig{Protocol: p, Shape: scenario.DefaultShape, Atomicity: model.GIL})
			require.NoError(t, err)
			require.Equal(t, check.EveryNRefuted, res.Verdict)
			v, f := search(t, p, model.GIL, res.RefutedAt)
			require.Equal(t, sched.Violation, v)
			require.Equal(t, f.Kind, res.Failure.Kind)
			for n := 1; n < res.RefutedAt; n++ {
				v, _ := search(t, p, model.GIL, n)
				require.Equal(t, sched.Verified, v, "%d threads", n)
			}
		})
	}
}

// Worlds the proof does not treat are refused before any search.
func TestEveryNRefuses(t *testing.T) {
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	sh := scenario.DefaultShape
	sh.Hosts = 2
	_, err = check.ProveEveryN(check.EveryNConfig{Protocol: p, Shape: sh, Atomicity: model.GIL})
	require.EqualError(t, err, "-threads all treats one host, one launch of one block, no faults, no shared memory, no syncthreads and no branch on the thread index; this scenario has more than one host")
}

// A timeout that passes in the explicit search for small N leaves the
// proof incomplete (not a world it does not treat), saying where it
// stopped and claiming no N it did not search.
func TestEveryNTimeoutInTheExplicitSearch(t *testing.T) {
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	cfg := check.EveryNConfig{Protocol: p, Shape: scenario.DefaultShape, Atomicity: model.GIL, Timeout: 1}
	res, err := check.ProveEveryN(cfg)
	require.NoError(t, err)
	require.Equal(t, check.EveryNIncomplete, res.Verdict)
	require.Empty(t, res.ExplicitStates)
	require.Equal(t, "incomplete: the timeout passed in the explicit search for N = 1", res.Describe(cfg))
}
