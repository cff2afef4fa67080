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
	"swapcheck/scenario"
	"swapcheck/sched"
)

// plain is a checked system with the speed machinery off: it offers a
// search only sched.System's methods, so no search asks for a compact
// key, the model never numbers its worlds, and so its memo (which keys a
// step by those numbers) never applies, no world goes stale, no step is
// peeked at, and no state is recycled or listed in one call.
type plain struct{ sched.System }

// Clone implements sched.System, keeping the copy plain.
func (p plain) Clone() sched.System { return plain{p.System.Clone()} }

// plainCanonical is plain with the canonical key, which States needs: a
// reduction, not a speed-up (it changes the state counts), and one that
// numbers no block or globals for the memo.
type plainCanonical struct{ plain }

// Clone implements sched.System, keeping the copy plain.
func (p plainCanonical) Clone() sched.System { return plainCanonical{plain{p.System.Clone()}} }

// AppendCanonicalKey implements sched.Canonical.
func (p plainCanonical) AppendCanonicalKey(b []byte) []byte {
	return p.System.(sched.Canonical).AppendCanonicalKey(b)
}

// speedOffStrategies is every search strategy, walks seeded afresh on
// each call.
func speedOffStrategies() []sched.Strategy {
	return []sched.Strategy{
		sched.DFS{}, sched.BFS{}, sched.States{}, sched.DPOR{}, sched.Bounded{MaxPreemptions: 2},
		sched.Parallel{Workers: 1}, sched.Parallel{Workers: 1, Symmetry: true},
		sched.Random{Runs: 100, Chooser: sched.NewSeeded(7)},
		sched.PCT{Depth: 3, Runs: 100, Chooser: sched.NewSeeded(7)},
	}
}

// The speed machinery (compact keys, the step memo, stale worlds, peeks,
// recycled states) changes nothing a search reports: for every variant,
// several scenarios, every atomicity mode and every strategy, a search with
// it gives the verdict, counts, failure and schedule (so the trace) of a
// search of the same program without it. Only the visited set's memory
// differs: compact keys are shorter. The largest searches are cut at the
// same count of executions, where both stand in the same place, except
// Parallel's: its workers count their executions into the run's only when
// they poll, every PollEvery steps' worth of work, which weighs a long key
// more than a compact one, so its cut lands a poll later or earlier; there
// both must be cut for the same reason, with no failure. By default each
// scenario runs with one variant and one mode, rotating along the
// scenarios (every variant and mode runs, each under every strategy);
// SWAPCHECK_LONG=1 runs every scenario x variant, each in one mode
// (testenv.Pairwise: every scenario and every variant meets every mode;
// the whole product took 38 s of CI's budget).
func TestSpeedMachineryChangesNothing(t *testing.T) {
	sequentialOnly(t)
	shapes := map[string]scenario.Shape{
		"2 threads":          scenario.DefaultShape,
		"3 threads":          {Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		"2 blocks, 2 calls":  {Threads: 2, Blocks: 2, Calls: 2, Modules: 1, Names: 1},
		"2 modules, nested":  {Threads: 2, Blocks: 1, Calls: 1, Modules: 2, Names: 2, Nest: 1},
		"2 threads, barrier": {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Syncthreads: true},
		"host calls":         {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Syncthreads: true, HostCalls: true},
		"two hosts":          {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2, HostCalls: true},
		"interrupts":         {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: scenario.Faults(0).With(scenario.FaultInterrupt), MaxFaults: 2},
		"raise faults":       {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultRaise), MaxFaults: 2},
		"raise, barrier":     {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Syncthreads: true, HostCalls: true, Faults: scenario.Faults(0).With(scenario.FaultRaise)},
		"both faults":        {Threads: 1, Blocks: 2, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultInterrupt).With(scenario.FaultRaise), MaxFaults: 2},
	}
	lim := sched.Limits{MaxExecutions: 5000}
	protocols, atomicities := check.Protocols(), model.Atomicities()
	for i, name := range slices.Sorted(maps.Keys(shapes)) {
		sc, err := shapes[name].Build()
		require.NoError(t, err, name)
		for _, pi := range testenv.Rotate(i, len(protocols)) {
			p := protocols[pi]
			for _, ai := range testenv.Pairwise(i, pi, len(atomicities)) {
				a := atomicities[ai]
				prog, err := model.NewProgram(sc, p, a)
				require.NoError(t, err)
				requireSpeedChangesNothing(t, fmt.Sprintf("%s/%s/%s", name, p.Name, a), prog, lim)
			}
		}
	}
}
