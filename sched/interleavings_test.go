package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// Interleavings counts exactly the executions of the stateless enumeration
// of every interleaving, on random programs with and without failures,
// from the states a stateful DFS stores (failures hidden, so that DFS
// stores every reachable state); and DPOR never runs more.
func TestInterleavingsCountsTheEnumeration(t *testing.T) {
	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p := g.gen.Draw(t, "program")
				for _, tolerant := range []bool{false, true} {
					count, states, ok := sched.Interleavings(newRecorder(newToy(p), tolerant), sched.Limits{})
					require.True(t, ok)
					require.Equal(t, float64(enumerations(newRecorder(newToy(p), tolerant))), count, "failures hidden: %v", tolerant)
					if !tolerant {
						continue
					}
					if _, res := search(sched.DFS{}, p, true, false); res.Verdict == sched.Verified {
						require.Equal(t, res.Stats.States, states, "the states DFS stores")
					}
					if _, res := search(sched.DPOR{}, p, true, false); res.Verdict == sched.Verified {
						require.LessOrEqual(t, float64(res.Stats.Executions), count)
					}
				}
			})
		})
	}
}

// A Stop or a step budget that cuts the pass says so.
func TestInterleavingsSaysWhenCut(t *testing.T) {
	p := toy("w0+1 w1+1", "w1+2 w0+2")
	_, _, ok := sched.Interleavings(newToy(p), sched.Limits{})
	require.True(t, ok)
	_, _, ok = sched.Interleavings(newToy(p), sched.Limits{MaxDepth: 2})
	require.False(t, ok, "an execution of four steps, a budget of two")
	_, _, ok = sched.Interleavings(newToy(p), sched.Limits{Stop: func() bool { return true }})
	require.True(t, ok, "Stop is polled every PollEvery steps, and the pass takes fewer")
}
