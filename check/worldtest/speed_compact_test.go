package worldtest_test

import (
	"encoding/binary"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/swap"
)

// The compact key is exact: on every state of seeded walks it is equal for
// two states exactly when AppendKey is, whether the world kept its block
// numbers from the step before (the searches' case, checked against a
// fresh lookup by VerifyCanonForTest) or computes them afresh (a clone),
// and a state with one slot changed gets another key.
//
// By default every scenario and protocol runs in one atomicity mode,
// rotating along the scenarios (testenv.Rotate); SWAPCHECK_LONG=1 runs
// each scenario and protocol in one mode too, rotating along both
// (testenv.Pairwise: every scenario and every protocol meets every mode),
// for CI's budget.
func TestCompactKeyIsExact(t *testing.T) {
	sequentialOnly(t)
	defer model.VerifyCanonForTest()()
	states := 0
	scs := keyScenarios(t)
	for i, name := range slices.Sorted(maps.Keys(scs)) {
		sc := scs[name]
		for pi, p := range protocols {
			for _, ai := range testenv.Pairwise(i, pi, len(atomicities)) {
				a := atomicities[ai]
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
						x, isWord := w.CompactWord()
						wantX, wantIsWord := sched.WordKey([]byte(k))
						require.Equal(t, wantIsWord, isWord, "%s/%s/%s: CompactWord and WordKey disagree on whether %x fits", name, p.Name, a, k)
						require.Equal(t, wantX, x, "%s/%s/%s: CompactWord of %x", name, p.Name, a, k)
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
	w := model.New(program(t, build(t, scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}), swap.Merged, model.GIL))
	walk(w, sched.NewSeeded(1), nil)
	full, compact := len(w.AppendKey(nil)), len(w.AppendCompactKey(nil))
	t.Logf("merged, 3 threads: AppendKey %d bytes, AppendCompactKey %d", full, compact)
	require.Less(t, 5*compact, full)
}

// CompactWord packs a compact key as sched.WordKey packs its bytes, for the
// numbers of searches too large for the walks above (two- and three-byte
// to five-byte uvarints): sched.PackUvarint writes what
// binary.AppendUvarint writes, and so does the packing of the blocks' numbers kept one byte
// each (World.packed), with or without one of them replaced (as PeekWord
// replaces a thread's block), up to nine numbers (more than fit).
func TestCompactWordPacksUvarints(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		number := rapid.OneOf(rapid.Uint32Range(1, 0x7f), rapid.Uint32Range(1, 300), rapid.Uint32Range(1, 1<<22), rapid.Uint32Min(1))
		nums := rapid.SliceOfN(number, 1, 9).Draw(t, "numbers")
		at := rapid.IntRange(0, len(nums)-1).Draw(t, "at") // 0: none
		n := number.Draw(t, "n")
		var b []byte
		for i, m := range nums {
			if i == at && at > 0 {
				m = n
			}
			b = binary.AppendUvarint(b, uint64(m))
		}
		x, ok := model.PackUvarintsForTest(nums, at, n)
		wantX, wantOK := sched.WordKey(b)
		require.Equal(t, wantOK, ok, "key %x", b)
		require.Equal(t, wantX, x, "key %x", b)
		if at > 0 { // as PeekWord packs a step's numbers
			x, ok = model.PackPeekedForTest(nums, at, n)
			require.Equal(t, wantOK, ok, "key %x, peeked", b)
			require.Equal(t, wantX, x, "key %x, peeked", b)
		}
	})
}
