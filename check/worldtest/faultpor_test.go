package worldtest_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// faultAtomicities are the modes POR reduces with faults: every one but
// gil-breaker, where futures claim nothing with a fault on
// (model/reduce_faults.go).
func faultAtomicities() []model.Atomicity {
	var out []model.Atomicity
	for _, a := range model.Atomicities() {
		if !a.BreakerOnly() {
			out = append(out, a)
		}
	}
	return out
}

// faultWorlds are worlds with every fault kind, alone and together, with
// several hosts, host calls, nesting, barriers, blocks, atomics, shared
// arrays and a bound of two, and the scenario files that have faults: each with one variant
// and one mode, rotating along the shapes (every variant and mode runs);
// long, each shape with a second variant. The worlds of bigFaultWorlds
// run only where SWAPCHECK_BIG_FAULT_WORLDS is set: millions of states
// each, they take minutes (every variant and mode of every shape took
// more than 10 minutes, under SWAPCHECK_LONG, on this 2-core machine).
func faultWorlds(t *testing.T, long bool) map[string]*model.Program {
	interrupt := scenario.Faults(0).With(scenario.FaultInterrupt)
	raise := scenario.Faults(0).With(scenario.FaultRaise)
	both := interrupt.With(scenario.FaultRaise)
	scs := map[string]*scenario.Scenario{}
	for name, sh := range map[string]scenario.Shape{
		"-threads 2 -faults interrupt":                                                  {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: interrupt},
		"-threads 2 -faults raise":                                                      {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: raise},
		"-threads 2 -faults interrupt,raise":                                            {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: both},
		"-threads 3 -faults raise":                                                      {Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: raise},
		"-threads 2 -calls 2 -modules 2 -faults interrupt,raise":                        {Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Faults: both},
		"-threads 2 -nest 1 -faults raise -max-faults 2":                                {Threads: 2, Blocks: 1, Calls: 1, Modules: 2, Names: 1, Nest: 1, Faults: raise, MaxFaults: 2},
		"-threads 2 -syncthreads -faults interrupt,raise":                               {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Syncthreads: true, Faults: both},
		"-threads 1 -blocks 2 -faults interrupt,raise -max-faults 2":                    {Threads: 1, Blocks: 2, Calls: 1, Modules: 1, Names: 1, Faults: both, MaxFaults: 2},
		"-threads 1 -host-calls -faults interrupt,raise":                                {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: both},
		"-threads 1 -host-calls -nest 1 -faults interrupt":                              {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Nest: 1, HostCalls: true, Faults: interrupt},
		"-threads 1 -hosts 2 -faults interrupt,raise":                                   {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2, Faults: both},
		"-threads 2 -hosts 2 -faults interrupt":                                         {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2, Faults: interrupt},
		"-threads 1 -hosts 2 -calls 2 -modules 2 -faults interrupt,raise -max-faults 2": {Threads: 1, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Hosts: 2, Faults: both, MaxFaults: 2},
		"-threads 1 -hosts 2 -faults interrupt":                                         {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2, Faults: interrupt},
		"-threads 2 -atomics add -faults interrupt,raise":                               {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Atomics: []scenario.AtomicOp{scenario.AtomicAdd}, Faults: both},
		"-threads 2 -shared -syncthreads -faults interrupt,raise":                       {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Shared: true, Syncthreads: true, Faults: both},
	} {
		if bigFaultWorlds[name] && os.Getenv("SWAPCHECK_BIG_FAULT_WORLDS") == "" {
			continue
		}
		sc, err := sh.Build()
		require.NoError(t, err)
		scs[name] = sc
	}
	for _, f := range []string{"interrupt.txt", "raise-fault.txt", "two-hosts-interrupt.txt"} {
		text, err := os.ReadFile(filepath.Join("..", "..", "testdata", "scenarios", f))
		require.NoError(t, err)
		sc, err := scenario.Parse(strings.NewReader(string(text)))
		require.NoError(t, err)
		scs[f] = sc
	}
	protocols, atomicities := check.Protocols(), faultAtomicities()
	progs := map[string]*model.Program{}
	for i, name := range slices.Sorted(maps.Keys(scs)) {
		pis := []int{i % len(protocols)}
		if long && !bigFaultWorlds[name] {
			pis = append(pis, (i+3)%len(protocols))
		}
		for _, pi := range pis {
			for _, ai := range []int{(i + pi) % len(atomicities)} {
				prog, err := model.NewProgram(scs[name], protocols[pi], atomicities[ai])
				require.NoError(t, err)
				progs[fmt.Sprintf("%s/%s/%s", name, protocols[pi].Name, atomicities[ai])] = prog
			}
		}
	}
	return progs
}

// bigFaultWorlds are the worlds of faultWorlds that only
// SWAPCHECK_BIG_FAULT_WORLDS=1 runs: millions of states each, unreduced.
var bigFaultWorlds = map[string]bool{
	"-threads 2 -hosts 2 -faults interrupt":                                         true,
	"-threads 1 -hosts 2 -calls 2 -modules 2 -faults interrupt,raise -max-faults 2": true,
}

// reducedEndStates is porEndStates with the search's state count.
func reducedEndStates(prog *model.Program, s sched.Strategy) ([]string, int64) {
	f := &porFinals{check.NewSystem(prog), map[string]bool{}, false}
	res := s.Run(f, sched.Limits{})
	return slices.Sorted(maps.Keys(f.seen)), res.Stats.States
}

// TestPORWithFaultsKeepsEndStates: with interrupts and raise faults,
// POR's persistent sets (model/reduce_faults.go) reach every end state
// the unreduced search reaches, up to symmetry, executions going on past
// their failures and deadlocks (Godefroid's theorem 4.3), on fewer
// states in some worlds (else the test would check nothing). The
// verdicts and kinds Explore reports are check's TestPORAgreesWithStates
// (on the scenario files with faults among others) and
// TestReductionsWithInterrupts.
func TestPORWithFaultsKeepsEndStates(t *testing.T) {
	sequentialOnly(t)
	progs := faultWorlds(t, testenv.Long())
	reduced := 0
	for _, name := range slices.Sorted(maps.Keys(progs)) {
		prog := progs[name]
		require.True(t, prog.FuturesKnown(), name)
		want, wantN := reducedEndStates(prog, sched.States{})
		got, gotN := reducedEndStates(prog, sched.POR{Workers: 1})
		require.Equal(t, want, got, "%s: POR's end states differ from the unreduced search's", name)
		require.LessOrEqual(t, gotN, wantN, name)
		if gotN < wantN {
			reduced++
		}
		t.Logf("%s: %d end states, states %d, por %d", name, len(want), wantN, gotN)
	}
	require.Positive(t, reduced, "POR reduced no world with faults: the test checks nothing")
}

// TestBrokenFaultPORIsCaught: with the fault rules broken on purpose (a
// raisable thread no longer brings RAISE into a persistent set, nor
// RAISE the raisable threads: model.BreakFaultPORForTest), POR misses end
// states on the worlds above (the default's).
func TestBrokenFaultPORIsCaught(t *testing.T) {
	sequentialOnly(t)
	progs := faultWorlds(t, false)
	defer model.BreakFaultPORForTest()()
	missed := worldsMissingEndStates(progs)
	t.Logf("the broken fault rules miss end states on %s", strings.Join(missed, ", "))
	require.NotEmpty(t, missed, "POR that explores no raise fault went unseen")
}

// TestPORWithFaultsOnRandomScenarios: the end states of POR with faults
// are the unreduced search's on random scenarios (genSearchScenario:
// nested calls, syncthreads, raises, branches, two blocks, launches or
// hosts, host calls), with a random fault set and bound, of every variant
// and mode but gil-breaker. A scenario whose unreduced search outruns
// randomExecutions is skipped.
func TestPORWithFaultsOnRandomScenarios(t *testing.T) {
	const randomExecutions = 200_000
	sequentialOnly(t)
	rapid.Check(t, func(rt *rapid.T) {
		sc, p, a := drawFaultWorld(rt)
		requireRandomEndStates(rt, sc, p, a, randomExecutions)
	})
}

// drawFaultWorld draws a random scenario (genSearchScenario) with a
// random fault set and bound, a variant, and a mode but gil-breaker.
func drawFaultWorld(rt *rapid.T) (*scenario.Scenario, *model.Protocol, model.Atomicity) {
	protocols, atomicities := check.Protocols(), faultAtomicities()
	kinds := []scenario.Faults{
		scenario.Faults(0).With(scenario.FaultInterrupt),
		scenario.Faults(0).With(scenario.FaultRaise),
		scenario.Faults(0).With(scenario.FaultInterrupt).With(scenario.FaultRaise),
	}
	sc := genSearchScenario(rt)
	sc.Faults = kinds[rapid.IntRange(0, len(kinds)-1).Draw(rt, "faults")]
	sc.MaxFaults = rapid.IntRange(1, 2).Draw(rt, "max faults")
	p := protocols[rapid.IntRange(0, len(protocols)-1).Draw(rt, "protocol")]
	a := atomicities[rapid.IntRange(0, len(atomicities)-1).Draw(rt, "atomicity")]
	return sc, p, a
}

// exceptionWorlds are worlds where a thread's exception takes it past a
// cut of its future (model/reduce_futures.go, Exceptions): host 0's
// interrupt orphans T0 inside f0, where the host's own call of f1 then
// stores None over the real module; T0's barrier load reads None and
// raises, so T0 runs f0's exit (its decrement of the count, under a lock
// the host deleted) without passing the barrier, whose cut holds while
// the host is frozen.
func exceptionWorlds(t *testing.T) map[string]*model.Program {
	sc, err := scenario.Parse(strings.NewReader(`threads 3
faults interrupt
max-faults 2
module mod0 cuda
module mod1 cuda
device f0 in mod0: syncthreads
device f1 in mod0: use cuda.local
kernel: if tid == 0: call f0; end
host: call f1; launch; call f1`))
	require.NoError(t, err)
	p, err := check.Lookup("refcount-unregistered")
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	return map[string]*model.Program{"orphan raises at the barrier/refcount-unregistered/gil": prog}
}

// TestPORKeepsEndStatesPastCuts: POR reaches the unreduced search's end
// states where an exception takes a thread past a cut, and does not with
// the cuts kept past raises (model.KeepCutsPastRaisesForTest): the
// world is one that rule loses end states on.
func TestPORKeepsEndStatesPastCuts(t *testing.T) {
	sequentialOnly(t)
	require.Empty(t, worldsMissingEndStates(exceptionWorlds(t)))
	defer model.KeepCutsPastRaisesForTest()()
	missed := worldsMissingEndStates(exceptionWorlds(t))
	t.Logf("with the cuts kept past raises: %s", strings.Join(missed, ", "))
	require.NotEmpty(t, missed, "futures that keep their cuts past an exception went unseen")
}
