package model_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// The agreement of DPOR with DFS on raise faults (check's
// TestReductionsWithRaiseFaults) catches wrong footprints: with RAISE's
// move declaring nothing shared and the armed move its statement's object,
// instead of a dependence on every step, DPOR misses end states that DFS
// reaches. The sound footprint
// reaches them all.
func TestNarrowRaiseFootprintIsCaught(t *testing.T) {
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	sc, err := model.Shape{Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: model.Faults(0).With(model.FaultRaise)}.Build()
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	want := endStates(prog, sched.DFS{})
	require.True(t, slices.Equal(want, endStates(prog, sched.DPOR{})), "the sound footprint misses end states")

	restore := model.NarrowRaise()
	defer restore()
	prog, err = model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	narrow := endStates(prog, sched.DPOR{})
	require.Less(t, len(narrow), len(want), "the narrow footprint is not caught")
	t.Logf("dfs reaches %d end states; dpor with the narrow footprint %d", len(want), len(narrow))
}

// A thread's raise fault falls only at a statement of a body: not in the
// swap machinery, not in the host's own code. Walking every state of a
// small scenario, each fault's event is a statement of the kernel or of a
// device function, and the raising thread is a GPU thread or a host in a
// device function it calls.
func TestRaiseFaultFallsOnlyAtStatements(t *testing.T) {
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	sc, err := model.Shape{Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: model.Faults(0).With(model.FaultRaise)}.Build()
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	seen := map[string]bool{}
	var walk func(w *model.World)
	walk = func(w *model.World) {
		k := string(w.AppendKey(nil))
		if seen[k] {
			return
		}
		seen[k] = true
		runnable, _ := w.AppendRunnable(nil)
		for _, u := range runnable {
			c := w.Clone()
			c.Trace = true
			ev := c.Step(int(u))
			if ev.Fault == model.FaultRaise {
				require.Contains(t, []string{"kernel", "f1"}, ev.Where, ev.Text)
				require.Equal(t, model.KernelError, ev.Raised)
			}
			c.Trace = false
			walk(c)
		}
	}
	walk(model.New(prog))
	require.Greater(t, len(seen), 10)
}
