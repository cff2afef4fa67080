package check_test

import (
	"maps"
	"os"
	"path/filepath"
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

// raiseFaults is the fault set {raise}.
var raiseFaults = scenario.Faults(0).With(scenario.FaultRaise)

// raiseScenarios are small scenarios with raise faults: shapes of one and
// two threads, a host call, a barrier, two faults, both fault kinds at
// once, and the scenario file raise-fault.txt.
func raiseScenarios(t *testing.T) map[string]*scenario.Scenario {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "scenarios", "raise-fault.txt"))
	require.NoError(t, err)
	defer f.Close()
	file, err := scenario.Parse(f)
	require.NoError(t, err)
	out := map[string]*scenario.Scenario{"raise-fault.txt": file}
	for name, sh := range map[string]scenario.Shape{
		"-threads 1 -faults raise":                         {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: raiseFaults},
		"-threads 2 -faults raise":                         {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: raiseFaults},
		"-threads 1 -host-calls -faults raise":             {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: raiseFaults},
		"-threads 2 -syncthreads -faults raise":            {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Syncthreads: true, Faults: raiseFaults},
		"-threads 1 -blocks 2 -faults raise -max-faults 2": {Threads: 1, Blocks: 2, Calls: 1, Modules: 1, Names: 1, Faults: raiseFaults, MaxFaults: 2},
		"-threads 1 -host-calls -faults interrupt,raise":   {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: raiseFaults.With(scenario.FaultInterrupt)},
		"-threads 1 -faults interrupt,raise":               {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: raiseFaults.With(scenario.FaultInterrupt)},
		"-threads 1 -faults interrupt,raise -max-faults 2": {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: raiseFaults.With(scenario.FaultInterrupt), MaxFaults: 2},
		"-threads 2 -hosts 2 -faults raise":                {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2, Faults: raiseFaults},
	} {
		sc, err := sh.Build()
		require.NoError(t, err, name)
		out[name] = sc
	}
	return out
}

// The reductions stay sound with raise faults, as with interrupts
// (TestReductionsWithInterrupts): past every failure, DPOR (whose
// footprints make RAISE's move and every armed move dependent with all)
// reaches exactly the end states and the failure kinds of the unreduced
// DFS, and Bounded with a bound that stops nothing the same kinds; States
// (keyed up to symmetry) and POR (full expansion with faults) reach DFS's
// verdict, and their counterexamples replay to their kind. The stateless
// searches run on the scenarios of one thread and one fault (with two
// faults, or a host call and both kinds, DPOR passes 100000 executions:
// RAISE and SIGINT depend on every step), up to 100000 executions, and
// are compared where they end within it (most must). By default each
// scenario runs with one variant and one mode, rotating along the
// scenarios (every variant and both modes run); SWAPCHECK_LONG=1 runs
// every scenario x variant x mode.
func TestReductionsWithRaiseFaults(t *testing.T) {
	sequentialOnly(t)
	stateless := map[string]bool{
		"-threads 1 -faults raise":             true,
		"-threads 1 -host-calls -faults raise": true,
		"-threads 1 -faults interrupt,raise":   true,
	}
	compared, statelessRun := 0, 0
	scenarios, protocols, atomicities := raiseScenarios(t), check.Protocols(), []model.Atomicity{model.GIL, model.GILBreaker}
	for i, name := range slices.Sorted(maps.Keys(scenarios)) {
		sc := scenarios[name]
		for _, pi := range testenv.Rotate(i, len(protocols)) {
			p := protocols[pi]
			for _, ai := range testenv.Rotate(i, len(atomicities)) {
				a := atomicities[ai]
				if stateless[name] {
					statelessRun++
				}
				t.Run(name+"/"+p.Name+"/"+a.String(), func(t *testing.T) {
					prog, err := model.NewProgram(sc, p, a)
					if strings.Contains(name, "hosts 2") && err != nil {
						t.Skip(err)
					}
					require.NoError(t, err)
					build := func() sched.System { return check.NewSystem(prog) }
					tolerant := func(s sched.Strategy) (*recorder, bool) {
						rec := newRecorder(build(), true)
						res := s.Run(rec, sched.Limits{MaxExecutions: 100000})
						if res.Verdict != sched.Verified {
							t.Logf("%s: %s at %d executions: not compared", s.Name(), res.Verdict, res.Stats.Executions)
						}
						return rec, res.Verdict == sched.Verified
					}
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
}

// A raise fault is RAISE's move then the raising thread's: the armed
// state lets only threads at a body's statement move, and the raising
// move's event says it is the fault. In raise-fault.txt some execution of
// every variant has one, and proposed stays verified.
func TestRaiseFaultIsTwoMoves(t *testing.T) {
	sc := raiseScenarios(t)["-threads 2 -faults raise"]
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	r := prog.Raiser()
	require.Equal(t, prog.NumThreads()-1, r, "the last thread")
	require.Equal(t, model.RaiseName, prog.ThreadName(r))
	require.Equal(t, -1, prog.Signal())

	w := model.New(prog)
	require.Equal(t, sched.Runnable, w.Status(r), "RAISE can move from the start")
	// Run the host until it started both threads; then T0 stands at its
	// first statement, and RAISE arms a fault there.
	for w.Status(1) == sched.Blocked || w.Status(2) == sched.Blocked {
		w.Step(model.Host)
	}
	w.Step(r)
	runnable, _ := w.AppendRunnable(nil)
	require.Equal(t, []sched.ThreadID{1, 2}, runnable, "armed: only the threads at a statement")
	ev := w.Step(1)
	require.Equal(t, scenario.FaultRaise, ev.Fault)
	require.Equal(t, model.KernelError, ev.Raised)
	require.Equal(t, 1, w.Faults())
	runnable, _ = w.AppendRunnable(nil)
	require.NotContains(t, runnable, sched.ThreadID(1), "T0 died")
	require.Contains(t, runnable, sched.ThreadID(r), "RAISE moves again, to end: the bound is spent")
	w.Step(r)
	require.Equal(t, sched.Done, w.Status(r))

	for _, v := range check.Protocols() {
		rep, err := check.Explore(check.Config{Protocol: v, Scenario: raiseScenarios(t)["raise-fault.txt"], Atomicity: model.GIL, Strategy: check.StrategyStates, Workers: 1})
		require.NoError(t, err)
		require.Positive(t, rep.Faulted, v.Name)
		if v.Name == "proposed" {
			require.Equal(t, sched.Verified, rep.Result.Verdict)
		}
	}
}

// A counterexample with a raise fault replays from its schedule, and its
// trace shows the fault at the raising thread's step.
func TestRaiseFaultTrace(t *testing.T) {
	sc := raiseScenarios(t)["raise-fault.txt"]
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyStates, Workers: 1})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, rep.Result.Verdict)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	steps, err := check.Steps(prog, rep.Result.Schedule)
	require.NoError(t, err)
	i := slices.IndexFunc(steps, func(s check.TraceStep) bool { return s.Event.Fault == scenario.FaultRaise })
	require.Positive(t, i, "a fault's step")
	require.Equal(t, prog.Raiser(), steps[i-1].Thread, "RAISE armed it")
	require.Contains(t, steps[i].Event.Text, "a fault, instead of")
}
