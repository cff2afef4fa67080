package worldtest_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// finals runs s past every failure and returns the end states it
// reached.
type finals struct {
	sched.System
	seen map[string]bool
}

func (f *finals) Step(t sched.ThreadID) *sched.Failure { f.System.Step(t); return nil }
func (f *finals) Final() *sched.Failure {
	f.seen[string(f.AppendKey(nil))] = true
	return nil
}
func (f *finals) Clone() sched.System { return &finals{f.System.Clone(), f.seen} }

func endStates(prog *model.Program, s sched.Strategy) []string {
	f := &finals{check.NewSystem(prog), map[string]bool{}}
	s.Run(f, sched.Limits{})
	return slices.Sorted(maps.Keys(f.seen))
}

// The agreement of DPOR with DFS on interrupts (check's
// TestReductionsWithInterrupts) catches a wrong footprint: with the
// interrupt declaring the host's next object instead of a dependence on
// every step, DPOR misses end states that DFS reaches. The sound
// footprint reaches them all. By default on one GPU thread (merged under
// the GIL: DFS reaches 19 end states, the narrow footprint 18), with
// SWAPCHECK_LONG=1 on two (79 and 66).
func TestNarrowSignalFootprintIsCaught(t *testing.T) {
	sequentialOnly(t)
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	threads := 1
	if testenv.Long() {
		threads = 2
	}
	sc, err := scenario.Shape{Threads: threads, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)}.Build()
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	want := endStates(prog, sched.DFS{})
	require.True(t, slices.Equal(want, endStates(prog, sched.DPOR{})), "the sound footprint misses end states")

	restore := model.NarrowSignalForTest()
	defer restore()
	prog, err = model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	narrow := endStates(prog, sched.DPOR{})
	require.Less(t, len(narrow), len(want), "the narrow footprint is not caught")
	t.Logf("dfs reaches %d end states; dpor with the narrow footprint %d", len(want), len(narrow))
}
