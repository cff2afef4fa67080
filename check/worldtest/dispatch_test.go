package worldtest_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/swap"
)

// TestDispatchResolvesPerThread: under proposed, once a module's cuda
// holds the dispatcher, each use sees what the calling thread is due, on
// random walks of two hosts that launch at once and call f from the host
// between launches: a GPU thread its own launch's fake, a host the real
// module. And the walks end with every name on the dispatcher, never on
// a fake.
func TestDispatchResolvesPerThread(t *testing.T) {
	sh := scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 2, Names: 2, HostCalls: true, Hosts: 2}
	sc, err := sh.Build()
	require.NoError(t, err)
	p, err := model.NewProgram(sc, swap.Proposed, model.GIL)
	require.NoError(t, err)
	dispatched := map[string]int{} // thread's due value: uses that read the dispatcher
	for seed := range uint64(200) {
		w := model.New(p)
		rng := rand.New(rand.NewPCG(seed, 1))
		for {
			r := runnable(w)
			if len(r) == 0 {
				break
			}
			u := int(r[rng.IntN(len(r))])
			ev := w.Step(u)
			if ev.Kind != model.EvUse {
				continue
			}
			require.Equal(t, ev.Want, ev.Saw, "seed %d: %s", seed, p.ThreadName(u))
			if u < p.NumHosts() {
				require.Equal(t, model.Real, ev.Saw, "a host outside a launch")
			} else {
				require.True(t, ev.Saw.IsFake(), "a GPU thread")
			}
			dispatched[ev.Want.String()]++
		}
		for m, mod := range sc.Modules {
			for i := range mod.Names {
				v := w.GlobalValue(m, i)
				require.Contains(t, []model.Value{model.Real, model.Dispatch}, v, "seed %d: %s.%s", seed, mod.Name, mod.Names[i])
				if m == 0 { // the kernel's module: swapped by every launch
					require.Equal(t, model.Dispatch, v, "seed %d: %s.%s", seed, mod.Name, mod.Names[i])
				}
			}
		}
	}
	// both launches' threads and the hosts were seen
	for _, v := range []string{"fake#1", "fake#2", "numba.cuda"} {
		require.Positive(t, dispatched[v], "no use was due %s", v)
	}
}
