package worldtest_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/naive"
	"swapcheck/sched"
	"swapcheck/swap"
)

// A thread's future (World.MayConflict's walk) must stand for every step
// the thread takes later. Along random walks over the walk scenarios, for
// every protocol and atomicity mode, each state's futures are checked
// against the steps that follow it: first with no thread frozen, then
// with a random set of threads frozen, the walk going on without them (a
// future may then stop where a frozen thread holds the thread up). With
// deathsFail, a walk stops at the first exception a raise statement did
// not ask for, as check's searches stop at its failure.
//
// By default every scenario and protocol runs in one atomicity mode,
// rotating along the scenarios (testenv.Rotate); SWAPCHECK_LONG=1 runs
// every mode.
func TestFuturesCoverLaterSteps(t *testing.T) {
	sequentialOnly(t)
	protocols := []*model.Protocol{naive.Protocol, swap.GlobalLock, swap.RefcountUnregistered, swap.RefcountDel, swap.Merged, swap.Proposed}
	scs := walkScenarios(t)
	for i, name := range slices.Sorted(maps.Keys(scs)) {
		sc := scs[name]
		for _, p := range protocols {
			for _, ai := range testenv.Rotate(i, len(atomicities)) {
				a := atomicities[ai]
				t.Run(fmt.Sprintf("%s/%s/%s", name, p.Name, a), func(t *testing.T) {
					prog := program(t, sc, p, a)
					for seed := range uint64(6) {
						c := sched.NewSeeded(seed)
						n := prog.NumThreads()
						frozen := make([]bool, n)
						if seed > 0 {
							for u := range frozen {
								frozen[u] = c.Choose([]sched.ThreadID{0, 1, 2}) == 0
							}
						}
						deathsFail := seed%2 == 1
						checkFutures(t, model.New(prog), c, frozen, deathsFail)
					}
				})
			}
		}
	}
}

// checkFutures walks w with c, never stepping a frozen thread, and checks
// that every step is covered by its thread's future at every state before
// it on the walk.
func checkFutures(t *testing.T, w *model.World, c sched.Chooser, frozen []bool, deathsFail bool) {
	var past []*model.World
	for step := 0; step < 2000; step++ {
		past = append(past, w.Clone())
		r := runnableUnfrozen(w, frozen)
		if len(r) == 0 {
			return
		}
		u := c.Choose(r)
		fp, poll := w.Footprint(int(u)), 0
		if u == model.Host {
			poll = w.PollOfForTest()
		}
		for i, s := range past {
			require.True(t, s.FutureCoversForTest(int(u), frozen, deathsFail, fp, poll),
				"frozen %v: the future of thread %d at step %d misses its step %d (footprint %+v, poll %d)", frozen, u, i, step, fp, poll)
		}
		ev := w.Step(int(u))
		if deathsFail && ev.Raised != 0 && ev.Raised != model.KernelError {
			return
		}
	}
}
