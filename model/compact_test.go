package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/swap"
)

// The compact key is exact: on every state of seeded walks it is equal for
// two states exactly when AppendKey is, whether the world kept its block
// numbers from the step before (the searches' case, checked against a
// fresh lookup by VerifyCanonForTest) or computes them afresh (a clone),
// and a state with one slot changed gets another key.
func TestCompactKeyIsExact(t *testing.T) {
	defer model.VerifyCanonForTest()()
	states := 0
	for name, sc := range keyScenarios(t) {
		for _, p := range protocols {
			for _, a := range atomicities {
				prog := program(t, sc, p, a)
				byCompact, byFull := map[string]string{}, map[string]string{}
				rng := rand.New(rand.NewPCG(3, 4))
				for seed := range uint64(10) {
					w := model.New(prog)
					walk(w, sched.NewSeeded(seed), func(w *model.World) {
						k, full := string(w.AppendCompactKey(nil)), key(w)
						if f, ok := byCompact[k]; ok {
							require.Equal(t, f, full, "%s/%s/%s: two states share a compact key", name, p.Name, a)
						}
						if c, ok := byFull[full]; ok {
							require.Equal(t, c, k, "%s/%s/%s: one state has two compact keys", name, p.Name, a)
						}
						byCompact[k], byFull[full] = full, k
						require.Equal(t, k, string(w.Clone().AppendCompactKey(nil)), "%s/%s/%s: a clone's compact key differs", name, p.Name, a)
						if n, ok := w.WithSlotForTest(rng.IntN(w.SlotsForTest()), 1); ok {
							require.NotEqual(t, k, string(n.AppendCompactKey(nil)), "%s/%s/%s: a changed slot kept the compact key", name, p.Name, a)
						}
						states++
					})
				}
			}
		}
	}
	require.Greater(t, states, 10000)
}

// The compact key of merged with three threads is several times shorter
// than the vector's bytes.
func TestCompactKeyIsShort(t *testing.T) {
	w := model.New(program(t, build(t, model.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}), swap.Merged, model.GIL))
	walk(w, sched.NewSeeded(1), nil)
	full, compact := len(w.AppendKey(nil)), len(w.AppendCompactKey(nil))
	t.Logf("merged, 3 threads: AppendKey %d bytes, AppendCompactKey %d", full, compact)
	require.Less(t, 5*compact, full)
}
