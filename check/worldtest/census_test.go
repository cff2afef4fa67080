package worldtest_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// A census (model.Census, the proof for every thread count) gives its
// world back: on every state of the variants' searches with three threads
// and two modules, putting the census together again gives the same
// census and a world with the same canonical key.
func TestCensusRoundTrip(t *testing.T) {
	for _, name := range []string{"merged", "global-lock", "refcount-del", "proposed"} {
		t.Run(name, func(t *testing.T) {
			p, err := check.Lookup(name)
			require.NoError(t, err)
			sc, err := scenario.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1}.Build()
			require.NoError(t, err)
			prog, err := model.NewProgram(sc, p, model.GIL)
			require.NoError(t, err)
			require.NoError(t, prog.CensusError())
			queue := []*model.World{model.New(prog)}
			seen := map[string]bool{}
			for len(queue) > 0 && len(seen) < 5000 {
				w := queue[0]
				queue = queue[1:]
				k := string(w.AppendCanonicalKey(nil))
				if seen[k] {
					continue
				}
				seen[k] = true
				c, err := w.Census()
				require.NoError(t, err)
				back, err := prog.FromCensus(c)
				require.NoError(t, err)
				again, err := back.Census()
				require.NoError(t, err)
				require.Equal(t, c, again)
				require.True(t, bytes.Equal(w.AppendCanonicalKey(nil), back.AppendCanonicalKey(nil)))
				for th := range prog.NumThreads() {
					if w.Status(th) == sched.Runnable {
						n := w.Clone()
						n.Step(th)
						queue = append(queue, n)
					}
				}
			}
			require.Greater(t, len(seen), 100)
		})
	}
}

// The worlds a census cannot take apart are refused, each with its reason.
func TestCensusRefuses(t *testing.T) {
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	for _, tc := range []struct {
		shape scenario.Shape
		why   string
	}{
		{scenario.Shape{Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 1}, "more than one block"},
		{scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2}, "more than one host"},
		{scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Syncthreads: true}, "syncthreads"},
		{scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Branch: true}, "a branch on the thread index"},
		{scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)}, "faults"},
	} {
		sc, err := tc.shape.Build()
		require.NoError(t, err)
		prog, err := model.NewProgram(sc, p, model.GIL)
		require.NoError(t, err)
		require.EqualError(t, prog.CensusError(), tc.why)
	}
}
