package check_test

import (
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

// faultScenarios are small scenarios with interrupts: shapes of the verdict
// table with -faults interrupt, a host call, two faults, and the scenario
// file of two launches.
func faultScenarios(t *testing.T) map[string]*scenario.Scenario {
	t.Helper()
	out := map[string]*scenario.Scenario{"interrupt.txt": interruptScenario(t)}
	for name, sh := range map[string]scenario.Shape{
		"-threads 2 -faults interrupt":                                 {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)},
		"-threads 1 -host-calls -faults interrupt":                     {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)},
		"-threads 1 -nest 1 -host-calls -faults interrupt":             {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Nest: 1, HostCalls: true, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)},
		"-threads 2 -syncthreads -faults interrupt":                    {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Syncthreads: true, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)},
		"-threads 1 -blocks 2 -faults interrupt -max-faults 2":         {Threads: 1, Blocks: 2, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultInterrupt), MaxFaults: 2},
		"-threads 1 -host-calls -faults interrupt -max-faults 3":       {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: scenario.Faults(0).With(scenario.FaultInterrupt), MaxFaults: 3},
		"-threads 1 -calls 0 -hosts 2 -faults interrupt":               {Threads: 1, Blocks: 1, Calls: 0, Modules: 1, Names: 1, Hosts: 2, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)},
		"-threads 1 -calls 0 -hosts 2 -faults interrupt -max-faults 2": {Threads: 1, Blocks: 1, Calls: 0, Modules: 1, Names: 1, Hosts: 2, Faults: scenario.Faults(0).With(scenario.FaultInterrupt), MaxFaults: 2},
	} {
		sc, err := sh.Build()
		require.NoError(t, err, name)
		out[name] = sc
	}
	return out
}

// The reductions stay sound with interrupts. Searching on past every
// failure, DPOR (whose footprints make the interrupt and a paused host's
// step dependent with all) reaches exactly the end states and the failure
// kinds of the unreduced DFS, and Bounded with a bound that stops nothing
// the same kinds; States (keyed up to symmetry) and POR (persistent sets
// under gil, full expansion under gil-breaker) reach DFS's verdict, and their
// counterexamples replay to their kind. The stateless searches past every
// failure run on the one-thread scenarios of one launch or two (the
// others' spaces are millions of executions, as in
// TestReductionsOnHostCallsAndBarriers), up to 100000 executions, and
// are compared where they end within it (the test requires most of them
// to).
//
// By default each scenario runs with one variant and one mode, rotating
// along the scenarios (every variant and both modes run); SWAPCHECK_LONG=1
// runs every scenario x variant, each in one mode (testenv.Pairwise: every
// scenario and every variant meets both modes), for CI's budget: the
// whole product took 231 s of it.
func TestReductionsWithInterrupts(t *testing.T) {
	sequentialOnly(t)
	stateless := map[string]bool{"interrupt.txt": true, "-threads 1 -host-calls -faults interrupt": true}
	// With two hosts the interrupt's step (dependent with every step) is
	// armed at nearly every step of host 0 while host 1 runs, and DPOR,
	// stateless, runs about a million executions on the smallest of them
	// (proposed, gil: 997941, for the 27 end states the stateful DFS
	// reaches in 715; merged: more than 2 million): it is compared
	// one-sided within the limit (every end state and kind it reaches is
	// one DFS reaches), and Bounded, stateful, in full;
	// TestDPORWithTwoHostsAndInterrupts runs proposed's to its end.
	severalHosts := map[string]bool{"-threads 1 -calls 0 -hosts 2 -faults interrupt": true, "-threads 1 -calls 0 -hosts 2 -faults interrupt -max-faults 2": true}
	compared, severalCompared := 0, 0
	statelessRun, severalRun := 0, 0
	scenarios, protocols, atomicities := faultScenarios(t), check.Protocols(), []model.Atomicity{model.GIL, model.GILBreaker}
	for i, name := range slices.Sorted(maps.Keys(scenarios)) {
		sc := scenarios[name]
		for _, pi := range testenv.Rotate(i, len(protocols)) {
			p := protocols[pi]
			for _, ai := range testenv.Pairwise(i, pi, len(atomicities)) {
				a := atomicities[ai]
				if stateless[name] {
					statelessRun++
				}
				if severalHosts[name] {
					severalRun++
				}
				t.Run(name+"/"+p.Name+"/"+a.String(), func(t *testing.T) {
					prog, err := model.NewProgram(sc, p, a)
					require.NoError(t, err)
					build := func() sched.System { return check.NewSystem(prog) }
					tolerantUpTo := func(s sched.Strategy, limit int64) (*recorder, bool) {
						rec := newRecorder(build(), true)
						res := s.Run(rec, sched.Limits{MaxExecutions: limit})
						// past every failure, a search that ends says verified
						if res.Verdict != sched.Verified {
							t.Logf("%s: %s at %d executions: not compared", s.Name(), res.Verdict, res.Stats.Executions)
						}
						return rec, res.Verdict == sched.Verified
					}
					tolerant := func(s sched.Strategy) (*recorder, bool) { return tolerantUpTo(s, 100000) }
					if stateless[name] {
						dfs, _ := tolerant(sched.DFS{})
						if dpor, done := tolerant(sched.DPOR{}); done {
							require.Equal(t, sorted(dfs.kinds), sorted(dpor.kinds), "dpor's kinds")
							require.Equal(t, sorted(dfs.finals), sorted(dpor.finals), "dpor's end states")
							compared++
						}
						if bounded, done := tolerant(sched.Bounded{MaxPreemptions: 64}); done {
							require.Equal(t, sorted(dfs.kinds), sorted(bounded.kinds), "bounded's kinds")
						}
					}
					if severalHosts[name] {
						dfs, done := tolerant(sched.DFS{})
						require.True(t, done, "dfs")
						bounded, done := tolerantUpTo(sched.Bounded{MaxPreemptions: 64}, 2000000)
						require.True(t, done, "bounded")
						require.Equal(t, sorted(dfs.kinds), sorted(bounded.kinds), "bounded's kinds")
						require.Equal(t, sorted(dfs.finals), sorted(bounded.finals), "bounded's end states")
						dpor, done := tolerant(sched.DPOR{})
						if done {
							require.Equal(t, sorted(dfs.kinds), sorted(dpor.kinds), "dpor's kinds")
							require.Equal(t, sorted(dfs.finals), sorted(dpor.finals), "dpor's end states")
						}
						for k := range dpor.kinds {
							require.True(t, dfs.kinds[k], "dpor finds kind %s, which dfs never does", k)
						}
						for k := range dpor.finals {
							require.True(t, dfs.finals[k], "dpor reaches an end state dfs never does")
						}
						severalCompared++
					}

					plain := sched.DFS{}.Run(build(), sched.Limits{})
					for _, strategy := range []string{check.StrategyStates, check.StrategyPOR} {
						rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: a, Strategy: strategy, Workers: 1})
						require.NoError(t, err)
						require.Equal(t, plain.Verdict, rep.Result.Verdict, strategy)
						if rep.Result.Verdict == sched.Violation {
							requireModelReplays(t, build, strategy, rep.Result)
						}
					}
				})
			}
		}
	}
	require.Positive(t, statelessRun)
	require.GreaterOrEqual(t, compared, statelessRun*3/4, "dpor's comparisons")
	require.Positive(t, severalRun)
	require.Equal(t, severalRun, severalCompared, "the two-host comparisons")
}

// DPOR, run to its end on two hosts with interrupts, reaches exactly the
// end states and kinds of the unreduced (stateful) DFS. Only proposed's
// search ends in reach (gil: 997941 executions, about 11 s here;
// gil-breaker: 305208); the numba-cuda variants' pass 1.5 million
// executions without ending (TestReductionsWithInterrupts compares them
// one-sided). By default both modes run on a smaller world of the same
// kind, two hosts launching an empty kernel (pass) with interrupts
// (gil: 192332 executions, gil-breaker: 60712; a second in all);
// SWAPCHECK_LONG=1 runs -threads 1 -calls 0 -hosts 2 -faults interrupt,
// whose kernel reads cuda.threadIdx, the counts above.
func TestDPORWithTwoHostsAndInterrupts(t *testing.T) {
	sequentialOnly(t)
	sc, err := scenario.Shape{Threads: 1, Blocks: 1, Calls: 0, Modules: 1, Names: 1, Hosts: 2, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)}.Build()
	require.NoError(t, err)
	if !testenv.Long() {
		sc, err = scenario.Parse(strings.NewReader("threads 1\nhosts 2\nfaults interrupt\nmodule kernels cuda\nkernel: pass\n"))
		require.NoError(t, err)
	}
	p, err := check.Lookup("proposed")
	require.NoError(t, err)
	for _, a := range []model.Atomicity{model.GIL, model.GILBreaker} {
		t.Run(a.String(), func(t *testing.T) {
			prog, err := model.NewProgram(sc, p, a)
			require.NoError(t, err)
			run := func(s sched.Strategy) *recorder {
				rec := newRecorder(check.NewSystem(prog), true)
				res := s.Run(rec, sched.Limits{MaxExecutions: 2000000})
				require.Equal(t, sched.Verified, res.Verdict, s.Name())
				return rec
			}
			dfs, dpor := run(sched.DFS{}), run(sched.DPOR{})
			require.Equal(t, sorted(dfs.kinds), sorted(dpor.kinds), "dpor's kinds")
			require.Equal(t, sorted(dfs.finals), sorted(dpor.finals), "dpor's end states")
			require.Greater(t, len(dfs.finals), 1)
		})
	}
}

// Every interrupt scenario here has executions with an interrupt, and
// the interrupt's step is SIGINT's, in every counterexample that has one.
func TestInterruptIsAThreadOfItsOwn(t *testing.T) {
	sc := interruptScenario(t)
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	sig := prog.Signal()
	require.Equal(t, prog.NumThreads()-1, sig, "the last thread")
	require.Equal(t, model.SignalName, prog.ThreadName(sig))
	w := model.New(prog)
	require.Equal(t, sched.Blocked, w.Status(sig), "nothing ran: no landing yet")

	none, err := model.NewProgram(&scenario.Scenario{Modules: sc.Modules, Functions: sc.Functions, Kernel: sc.Kernel, Threads: 1, Blocks: 1, Launches: 1}, p, model.GIL)
	require.NoError(t, err)
	require.Equal(t, -1, none.Signal(), "no faults, no SIGINT")
}

// Bad fault input is one line naming the problem.
func TestBadFaults(t *testing.T) {
	_, err := scenario.ParseFaults("interrupt,nosuch")
	require.EqualError(t, err, `unknown fault "nosuch" (want interrupt, raise)`)
	for text, want := range map[string]string{
		"faults nosuch\nmodule k cuda\nkernel: use cuda.x\n":                           `line 1: unknown fault "nosuch" (want interrupt, raise)`,
		"faults interrupt\nmax-faults 9\nmodule k cuda\nkernel: use cuda.x\n":          "line 2: max-faults must be 1..3, got 9",
		"hosts 2\nfaults interrupt\nmax-faults 0\nmodule k cuda\nkernel: use cuda.x\n": "line 3: max-faults must be 1..3, got 0",
		"hosts 4\nfaults interrupt\nmodule k cuda\nkernel: use cuda.x\n":               "line 1: hosts must be 1..3, got 4",
		"faults interrupt\nfaults interrupt\nmodule k cuda\nkernel: use cuda.x\n":      "line 2: faults given twice",
	} {
		_, err := scenario.Parse(strings.NewReader(text))
		require.EqualError(t, err, want, text)
	}
}
