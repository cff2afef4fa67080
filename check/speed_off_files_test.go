package check_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/sched"
)

// The speed cache changes nothing a search reports on any scenario file
// either: TestSpeedMachineryChangesNothing's comparison, for every file of
// testdata/scenarios, every variant and every strategy. By default each
// file runs with one variant in one atomicity mode, the variants and the
// modes taken in turn along the files (every variant and every mode
// runs); SWAPCHECK_LONG=1 runs every file with every variant, each in
// one mode (testenv.Pairwise: every file and every variant meets every
// mode; the whole product took 43 s of CI's budget).
func TestSpeedMachineryChangesNothingOnScenarioFiles(t *testing.T) {
	sequentialOnly(t)
	files := scenarioFiles(t)
	atomicities, protocols := model.Atomicities(), check.Protocols()
	lim := sched.Limits{MaxExecutions: 2000}
	for i, name := range slices.Sorted(maps.Keys(files)) {
		for _, pi := range testenv.Rotate(i, len(protocols)) {
			p := protocols[pi]
			for _, ai := range testenv.Pairwise(i, pi, len(atomicities)) {
				a := atomicities[ai]
				prog, err := model.NewProgram(files[name], p, a)
				require.NoError(t, err)
				requireSpeedChangesNothing(t, fmt.Sprintf("%s/%s/%s", name, p.Name, a), prog, lim)
			}
		}
	}
}

// requireSpeedChangesNothing runs every strategy on prog with the speed
// machinery off (plain) and on, and requires the same result of both, as
// TestSpeedMachineryChangesNothing says.
func requireSpeedChangesNothing(t *testing.T, where string, prog *model.Program, lim sched.Limits) {
	t.Helper()
	slow, fast := speedOffStrategies(), speedOffStrategies()
	for i := range slow {
		where := where + "/" + slow[i].Name()
		var off sched.System = plain{check.NewSystem(prog)}
		if _, ok := slow[i].(sched.States); ok {
			off = plainCanonical{plain{check.NewSystem(prog)}}
		}
		if par, ok := slow[i].(sched.Parallel); ok && par.Symmetry {
			off = plainCanonical{plain{check.NewSystem(prog)}}
		}
		want := slow[i].Run(off, lim)
		got := fast[i].Run(check.NewSystem(prog), lim)
		want.Stats.MemoryBytes, got.Stats.MemoryBytes = 0, 0
		if _, ok := slow[i].(sched.Parallel); ok && want.Cut != "" {
			require.Equal(t, want.Cut, got.Cut, where)
			require.GreaterOrEqual(t, got.Stats.Executions, lim.MaxExecutions, where)
			want.Stats, got.Stats = sched.Stats{}, sched.Stats{}
		}
		require.Equal(t, want, got, where)
	}
}
