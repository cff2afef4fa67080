package source_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// TestInterruptDeadlocksOn313: merged's swap (numba-cuda's since
// d41b90d3, the same at its head) on testdata/scenarios/interrupt.txt (a
// Ctrl-C in the host, then a second launch): on CPython 3.13 an
// interrupt in the scan's inlined comprehension leaves the module's lock
// held (pyvm's TestInterruptUnwindsAsCPython has it from the real
// interpreter), and the second launch's swap waits for it for good: a
// deadlock, reachable on 3.13 and not on 3.11 or 3.12. Both reach
// left-swapped (an interrupt between _swap_orig.pop and the update).
func TestInterruptDeadlocksOn313(t *testing.T) {
	f, err := os.Open("../testdata/scenarios/interrupt.txt")
	require.NoError(t, err)
	sc, err := scenario.Parse(f)
	f.Close()
	require.NoError(t, err)
	for _, c := range []struct {
		v        pyvm.Version
		deadlock bool
	}{{pyvm.V311, false}, {pyvm.V312, false}, {pyvm.V313, true}} {
		t.Run(c.v.String(), func(t *testing.T) {
			p, err := source.Load(sourceOf(t, c.v, "../testdata/python/merged.py"), sc, model.GIL)
			require.NoError(t, err)
			kinds, states := reachableStates(t, source.New(p))
			t.Logf("CPython %s: kinds %v, %d states (docs/source.md's table)", c.v, kinds, states)
			require.Contains(t, kinds, "left-swapped")
			if c.deadlock {
				require.Contains(t, kinds, sched.KindDeadlock)
			} else {
				require.NotContains(t, kinds, sched.KindDeadlock)
			}
		})
	}
}

// TestInterruptNotAtYield: one_thread.py saves and restores the module's
// name with no eval-breaker check between its store and its try but the
// one after its yield, in contextlib's __enter__, where CPython leaves
// the generator suspended and runs its finally when the exception dies.
// The interrupt does not land there (source/interrupt.go), so -threads 1
// has no violation, and the search, which covers the interrupt only in
// part, is no proof (Program.Partial).
func TestInterruptNotAtYield(t *testing.T) {
	sh := scenario.Shape{Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1}
	sh.Faults = sh.Faults.With(scenario.FaultInterrupt)
	for _, v := range []pyvm.Version{pyvm.V311, pyvm.V312} {
		p := load(t, v, "testdata/one_thread.py", sh, model.GIL)
		require.Empty(t, reachable(t, source.New(p)), "CPython %s", v)
		require.NotEmpty(t, p.Partial())
	}
}
