package worldtest_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/swap"
)

// A pinned module's globals do not change while the frozen threads stay
// put (reduce_futures.go, "Pinned modules"): POR lets a read of them commute
// with every other thread's steps on that claim. Random walks over the
// walk scenarios and three more with nesting into one module, for each
// protocol that can pin a module and every atomicity mode: each walk
// runs with every thread for a while, freezes a random set of threads
// (those inside a with-body among them, whose references pin), and goes
// on without them; no step after a state where a module was pinned may
// write that module's globals (merged's family, global-lock) or change
// them (proposed).
func TestPinnedModulesStayUnwritten(t *testing.T) {
	sequentialOnly(t)
	pinned, writes := pinnedWalksWith(t, pinningProtocols, func(format string, args ...any) { t.Fatalf(format, args...) })
	t.Logf("%d pinned states seen, %d writes of a module's globals checked", pinned, writes)
	require.Positive(t, pinned, "no walk reached a pinned module: the test checks nothing")
	require.Positive(t, writes)
}

// TestBrokenPinIsCaught: a pin that ignores the state (every module of
// such a protocol pinned) is caught by the walks above, for each protocol.
func TestBrokenPinIsCaught(t *testing.T) {
	sequentialOnly(t)
	defer model.BreakPinForTest()()
	for _, p := range pinningProtocols {
		caught := false
		pinnedWalksWith(t, []*model.Protocol{p}, func(string, ...any) { caught = true })
		require.True(t, caught, "%s: a pin that ignores the state went unseen", p.Name)
	}
}

// pinningProtocols are the protocols that can pin a module.
var pinningProtocols = []*model.Protocol{swap.RefcountUnregistered, swap.RefcountDel, swap.Merged, swap.GlobalLock, swap.Proposed}

func pinnedWalksWith(t *testing.T, protocols []*model.Protocol, fail func(string, ...any)) (pinned, writes int) {
	scenarios := walkScenarios(t)
	scenarios["nested 3"] = build(t, scenario.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Nest: 1})
	scenarios["one module"] = build(t, scenario.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 1, Names: 2})
	scenarios["two launches"] = parse(t, `threads 2
launches 2
module kernels cuda
module dev1 cuda
device f in dev1: use cuda.local
kernel: call f; use cuda.threadIdx`)
	for name, sc := range scenarios {
		for _, p := range protocols {
			require.True(t, p.GuardsGlobals() || p.StoresDispatchOverReal, p.Name)
			for _, a := range atomicities {
				prog := program(t, sc, p, a)
				for seed := range uint64(24) {
					c := sched.NewSeeded(seed)
					w := model.New(prog)
					n := prog.NumThreads()
					frozen := make([]bool, n)
					freezeAt := int(seed) * 3
					var ever []bool // per module: pinned at a state so far
					for step := 0; step < 2000; step++ {
						if step == freezeAt {
							for u := range frozen {
								frozen[u] = c.Choose([]sched.ThreadID{0, 1}) == 0
							}
							ever = make([]bool, len(sc.Modules))
						}
						if ever != nil {
							for m := range sc.Modules {
								if w.PinnedForTest(m, frozen) {
									ever[m] = true
									pinned++
								}
							}
						}
						r := runnableUnfrozen(w, frozen)
						if len(r) == 0 {
							break
						}
						u := c.Choose(r)
						m := w.GlobalsWrittenForTest(w.Footprint(int(u)))
						before := globalsOf(w, prog, m)
						w.Step(int(u))
						if m >= 0 && ever != nil {
							writes++
							changed := !slices.Equal(before, globalsOf(w, prog, m))
							if ever[m] && (p.GuardsGlobals() || changed) {
								fail("%s/%s/%s seed %d: thread %d writes module %d's globals at step %d (changed: %v), pinned earlier (frozen %v)",
									name, p.Name, a, seed, u, m, step, changed, frozen)
								return
							}
						}
					}
				}
			}
		}
	}
	return
}

// globalsOf is module m's globals in w (nil for m < 0).
func globalsOf(w *model.World, prog *model.Program, m int) []model.Value {
	if m < 0 {
		return nil
	}
	var out []model.Value
	for i := range prog.GlobalsLenForTest(m) {
		out = append(out, w.GlobalValue(m, i))
	}
	return out
}
