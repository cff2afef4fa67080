package worldtest_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
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
	sc, err := scenario.Shape{Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultRaise)}.Build()
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	want := endStates(prog, sched.DFS{})
	require.True(t, slices.Equal(want, endStates(prog, sched.DPOR{})), "the sound footprint misses end states")

	restore := model.NarrowRaiseForTest()
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
	sc, err := scenario.Shape{Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: scenario.Faults(0).With(scenario.FaultRaise)}.Build()
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	seen := map[string]bool{}
	fell := map[string]bool{} // by who: "host" or "T0"
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
			if ev.Fault == scenario.FaultRaise {
				require.Contains(t, []string{"kernel", "f1"}, ev.Where, ev.Text)
				require.Equal(t, model.KernelError, ev.Raised)
				fell[prog.ThreadName(int(u))] = true
			}
			c.Trace = false
			walk(c)
		}
	}
	walk(model.New(prog))
	require.Equal(t, map[string]bool{"host": true, "T0": true}, fell, "faults fall in the GPU thread and in the host's calls")
}

// States (keyed up to symmetry, its keys checked against a fresh lookup)
// agrees with the exact DFS on shapes with raise faults: the verdict, the
// counterexample, and never more states stored. The fault's count and
// armed flag are globals, which name no thread, so the threads of a block
// stay interchangeable while their own futures are.
func TestStatesAgreesWithDFSOnRaiseFaults(t *testing.T) {
	t.Cleanup(model.VerifyCanonForTest())
	raise := scenario.Faults(0).With(scenario.FaultRaise)
	shapes := map[string]scenario.Shape{
		"threads=2":                   {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: raise},
		"threads=3":                   {Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: raise},
		"threads=2,calls=2,modules=2": {Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Faults: raise},
		"threads=2,sync,max-faults=2": {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Syncthreads: true, Faults: raise, MaxFaults: 2},
		"threads=2,blocks=2,both":     {Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 1, Faults: raise.With(scenario.FaultInterrupt), MaxFaults: 2},
	}
	for name, sh := range shapes {
		for _, p := range protocols {
			for _, a := range atomicities {
				prog := program(t, build(t, sh), p, a)
				t.Run(name+"/"+p.Name+"/"+a.String(), func(t *testing.T) {
					t.Parallel()
					d, skipped := compareSearches(prog, 2000)
					if skipped {
						t.Skip("dfs did not end within its budget")
					}
					require.Empty(t, d)
				})
			}
		}
	}
}
