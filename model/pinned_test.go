package model_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/swap"
)

// A pinned module's globals are not written while the frozen threads stay
// put (futures.go, "Pinned modules"): POR lets a read of them commute
// with every other thread's steps on that claim. Random walks over the
// walk scenarios and three more with nesting into one module, for each
// protocol whose count guards its globals and every atomicity mode: each
// walk runs with every thread for a while, freezes a random set of
// threads (those inside a with-body among them, whose references pin),
// and goes on without them; no step after a state where a module was
// pinned may write that module's globals.
func TestPinnedModulesStayUnwritten(t *testing.T) {
	sequentialOnly(t)
	pinned, writes := pinnedWalks(t)
	t.Logf("%d pinned states seen, %d writes of a module's globals checked", pinned, writes)
	require.Positive(t, pinned, "no walk reached a pinned module: the test checks nothing")
	require.Positive(t, writes)
}

// TestBrokenPinIsCaught: a pin that ignores the count (every module of
// such a protocol pinned) is caught by the walks above.
func TestBrokenPinIsCaught(t *testing.T) {
	sequentialOnly(t)
	defer model.BreakPinForTest()()
	caught := false
	pinnedWalksWith(t, func(string, ...any) { caught = true })
	require.True(t, caught, "a pin that ignores the count went unseen")
}

func pinnedWalks(t *testing.T) (pinned, writes int) {
	return pinnedWalksWith(t, func(format string, args ...any) { t.Fatalf(format, args...) })
}

func pinnedWalksWith(t *testing.T, fail func(string, ...any)) (pinned, writes int) {
	scenarios := walkScenarios(t)
	scenarios["nested 3"] = build(t, model.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Nest: 1})
	scenarios["one module"] = build(t, model.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 1, Names: 2})
	scenarios["two launches"] = parse(t, `threads 2
launches 2
module kernels cuda
module dev1 cuda
device f in dev1: use cuda.local
kernel: call f; use cuda.threadIdx`)
	for name, sc := range scenarios {
		for _, p := range []*model.Protocol{swap.RefcountUnregistered, swap.RefcountDel, swap.Merged} {
			require.True(t, p.CountGuardsGlobals, p.Name)
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
								if w.Pinned(m, frozen) {
									ever[m] = true
									pinned++
								}
							}
						}
						var r []sched.ThreadID
						for _, u := range runnable(w) {
							if !frozen[u] {
								r = append(r, u)
							}
						}
						if len(r) == 0 {
							break
						}
						u := c.Choose(r)
						if m := w.GlobalsWritten(w.Footprint(int(u))); m >= 0 && ever != nil {
							writes++
							if ever[m] {
								fail("%s/%s/%s seed %d: thread %d writes module %d's globals at step %d, pinned earlier (frozen %v)",
									name, p.Name, a, seed, u, m, step, frozen)
								return
							}
						}
						w.Step(int(u))
					}
				}
			}
		}
	}
	return
}
