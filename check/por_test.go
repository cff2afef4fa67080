package check_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// The por search against the unreduced states search, on every protocol
// and atomicity mode, on the README's scenario files and on generated
// shapes with several calls, modules, nesting, barriers and blocks: the
// same verdict; for a violation, a counterexample that replays, of the
// same kind, and of the same length when Explore's breadth-first search
// shortened either (then both are shortest); never more states. And por
// on two workers against por on one: the same verdict and kind, and the
// same counts (see sched.POR, "Several workers"). By default each
// scenario runs with one protocol and one mode, rotating along the
// scenarios (every protocol and mode runs); SWAPCHECK_LONG=1 runs every
// scenario x protocol x mode.
func TestPORAgreesWithStates(t *testing.T) {
	sequentialOnly(t)
	scenarios := scenarioFiles(t)
	for name, sh := range map[string]scenario.Shape{
		"3 threads, 2 calls, 2 modules, nest 1": {Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Nest: 1},
		"3 threads, syncthreads":                {Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 2, Syncthreads: true},
		"2 blocks":                              {Threads: 2, Blocks: 2, Calls: 1, Modules: 2, Names: 1},
		"2 hosts, 2 calls, 2 modules":           {Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Hosts: 2},
		"2 hosts, host calls":                   {Threads: 2, Blocks: 1, Calls: 1, Modules: 2, Names: 1, Hosts: 2, HostCalls: true},
		"3 hosts":                               {Threads: 1, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Hosts: 3},
	} {
		sc, err := sh.Build()
		require.NoError(t, err)
		scenarios[name] = sc
	}
	twoLaunches, err := scenario.Parse(strings.NewReader(`threads 2
launches 2
hosts 2
module kernels cuda
module dev1 cuda
device f in dev1: use cuda.local; syncthreads
kernel: call f; use cuda.threadIdx`))
	require.NoError(t, err)
	scenarios["2 hosts, 2 launches each"] = twoLaunches
	protocols, atomicities := check.Protocols(), model.Atomicities()
	for i, name := range slices.Sorted(maps.Keys(scenarios)) {
		sc := scenarios[name]
		for _, pi := range testenv.Rotate(i, len(protocols)) {
			p := protocols[pi]
			for _, ai := range testenv.Rotate(i, len(atomicities)) {
				a := atomicities[ai]
				t.Run(fmt.Sprintf("%s/%s/%s", name, p.Name, a), func(t *testing.T) {
					run := func(strategy string, workers int) *check.Report {
						rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: a, Strategy: strategy, Workers: workers})
						require.NoError(t, err)
						require.NotEqual(t, sched.Incomplete, rep.Result.Verdict, strategy)
						return rep
					}
					st, por, por2 := run(check.StrategyStates, 1), run(check.StrategyPOR, 1), run(check.StrategyPOR, 2)
					require.Equal(t, st.Result.Verdict, por.Result.Verdict, "states: %+v, por: %+v", st.Result.Failure, por.Result.Failure)
					require.Equal(t, por.Result.Verdict, por2.Result.Verdict, "por on two workers")
					if st.Result.Verdict == sched.Verified {
						require.LessOrEqual(t, por.Result.Stats.States, st.Result.Stats.States)
						one, two := por.Result.Stats, por2.Result.Stats
						require.False(t, two.CountsByTiming)
						require.Equal(t, [4]int64{one.States, one.Steps, one.Matched, one.Executions},
							[4]int64{two.States, two.Steps, two.Matched, two.Executions}, "por's counts on one worker and on two")
						return
					}
					require.Equal(t, por.Result.Failure.Kind, por2.Result.Failure.Kind, "por on two workers")
					build := func() sched.System { return check.NewSystem(por.Program) }
					requireModelReplays(t, build, "por", por.Result)
					require.Equal(t, st.Result.Failure.Kind, por.Result.Failure.Kind)
					if st.Shortened || por.Shortened {
						// the breadth-first search finished: both are shortest
						require.Len(t, por.Result.Schedule, len(st.Result.Schedule))
					} else if len(por.Result.Schedule) > len(st.Result.Schedule) {
						t.Logf("por's counterexample has %d steps, states' %d (neither could be shortened within the budget)",
							len(por.Result.Schedule), len(st.Result.Schedule))
					}
				})
			}
		}
	}
}
