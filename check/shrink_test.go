package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// shrinkCase is one search whose counterexample is shrunk: a shape built
// by flags, or a scenario file.
type shrinkCase struct {
	name  string
	shape *scenario.Shape
	file  string
	table bool // one of the verdict table's
}

func (c shrinkCase) scenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	if c.shape != nil {
		sc, err := c.shape.Build()
		require.NoError(t, err)
		return sc
	}
	f, err := os.Open(filepath.Join("..", "testdata", "scenarios", c.file))
	require.NoError(t, err)
	defer f.Close()
	sc, err := scenario.Parse(f)
	require.NoError(t, err)
	return sc
}

// shrinkCases are the verdict table's scenarios, every scenario file,
// and a few larger shapes.
func shrinkCases(t *testing.T) []shrinkCase {
	var cases []shrinkCase
	for _, ts := range check.TableShapes {
		sh := ts.Shape
		cases = append(cases, shrinkCase{name: ts.Flags, shape: &sh, table: true})
	}
	for _, sh := range []scenario.Shape{
		{Threads: 4, Blocks: 1, Calls: 2, Modules: 1, Names: 1},
		{Threads: 3, Blocks: 2, Calls: 2, Modules: 2, Names: 2, Nest: 1, Syncthreads: true},
	} {
		cases = append(cases, shrinkCase{name: shapeName(sh), shape: &sh})
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		cases = append(cases, shrinkCase{name: filepath.Base(f), file: filepath.Base(f)})
	}
	return cases
}

func shapeName(sh scenario.Shape) string {
	var s []byte
	s = append(s, []byte("shape")...)
	for _, v := range []int{sh.Threads, sh.Blocks, sh.Calls, sh.Modules, sh.Names, sh.Nest} {
		s = append(s, '-', byte('0'+v))
	}
	if sh.Syncthreads {
		s = append(s, []byte("-sync")...)
	}
	return string(s)
}

// explore runs the default search (auto on one worker) of a case, shrunk
// or not.
func exploreCase(t *testing.T, v variants.Variant, a model.Atomicity, c shrinkCase, shrink bool) *check.Report {
	t.Helper()
	return exploreWith(t, check.StrategyAuto, v, a, c, shrink)
}

// exploreWith runs a strategy (on one worker) on a case.
func exploreWith(t *testing.T, strategy string, v variants.Variant, a model.Atomicity, c shrinkCase, shrink bool) *check.Report {
	t.Helper()
	cfg := check.Config{Protocol: v.Protocol, Scenario: c.scenario(t), Atomicity: a, Workers: 1, Shrink: shrink, Strategy: strategy}
	if c.shape != nil {
		sh := *c.shape
		cfg.Shape = &sh
	}
	rep, err := check.Explore(cfg)
	require.NoError(t, err)
	return rep
}

// TestShrinkKeepsKindAndNeverLengthens: for every variant, atomicity
// mode and case with a violation, found by auto (the fewest preemptions)
// or by dfs (then the fewest steps), the shrunk counterexample has the
// same kind, no more steps and no more preemptions than the one the
// search found, a scenario no larger, and it replays from its schedule
// file (the scenario as text) to the same kind; shrinking twice gives
// the same. By default each case runs with one variant and one mode
// under each strategy, rotating along the cases (every variant and mode
// runs); SWAPCHECK_LONG=1 runs every case x variant x mode.
func TestShrinkKeepsKindAndNeverLengthens(t *testing.T) {
	sequentialOnly(t)
	violations := 0
	vs, atomicities := variants.All(), model.Atomicities()
	for _, strategy := range []string{check.StrategyAuto, check.StrategyDFS} {
		for i, c := range shrinkCases(t) {
			for _, vi := range testenv.Rotate(i, len(vs)) {
				v := vs[vi]
				for _, ai := range testenv.Rotate(i, len(atomicities)) {
					a := atomicities[ai]
					if strategy == check.StrategyDFS && c.file == "" && (v.Expected == variants.Correct || !c.table) {
						continue // dfs without symmetry: long on the larger shapes
					}
					t.Run(strategy+"/"+v.Protocol.Name+"/"+a.String()+"/"+c.name, func(t *testing.T) {
						shrinkCheck(t, strategy, v, a, c, &violations)
					})
				}
			}
		}
	}
	require.Positive(t, violations)
}

func shrinkCheck(t *testing.T, strategy string, v variants.Variant, a model.Atomicity, c shrinkCase, violations *int) {
	plain := exploreWith(t, strategy, v, a, c, false)
	if plain.Result.Verdict != sched.Violation {
		require.Nil(t, plain.Shrink)
		return
	}
	*violations++
	require.Nil(t, plain.Shrink, "shrinking ran though it was off")
	rep := exploreWith(t, strategy, v, a, c, true)
	require.NotNil(t, rep.Shrink)
	require.Equal(t, sched.Violation, rep.Result.Verdict)
	require.Equal(t, plain.Result.Failure.Kind, rep.Result.Failure.Kind)
	require.Equal(t, plain.Harm, rep.Harm, "shrinking keeps the class")
	require.LessOrEqual(t, len(rep.Result.Schedule), len(plain.Result.Schedule))
	require.LessOrEqual(t, rep.Preemptions, plain.Preemptions)
	require.LessOrEqual(t, rep.Config.Scenario.Threads, plain.Config.Scenario.Threads)
	require.LessOrEqual(t, rep.Config.Scenario.Blocks, plain.Config.Scenario.Blocks)
	require.LessOrEqual(t, rep.Config.Scenario.Launches, plain.Config.Scenario.Launches)
	require.Equal(t, len(plain.Result.Schedule), rep.Shrink.StepsFrom)
	require.Equal(t, len(rep.Result.Schedule), rep.Shrink.StepsTo)
	require.Equal(t, plain.Preemptions, rep.Shrink.PreemptionsFrom)
	require.Equal(t, rep.Preemptions, rep.Shrink.PreemptionsTo)
	if sc := c.scenario(t); sc.NumHosts() > 1 && sc.Faults != 0 {
		// Two hosts with interrupts (two-hosts-interrupt.txt): the
		// interrupt's step is dependent with every step and armed at
		// nearly every step of host 0, so a search for fewer
		// preemptions can outgrow the budget (refcount-unregistered,
		// free-threaded-overwrite: one search of eight); what was
		// shrunk is still checked below.
		if rep.Shrink.Cut > 0 {
			t.Logf("%d of %d shrinking searches cut by the budget", rep.Shrink.Cut, rep.Shrink.Searches)
		}
	} else {
		require.Zero(t, rep.Shrink.Cut, "a README scenario's shrinking fits its budget")
	}

	sc, err := scenario.Parse(stringsReader(rep.Config.Scenario.String()))
	require.NoError(t, err)
	replayed, err := check.Replay(&check.Schedule{Protocol: v.Protocol, Atomicity: a, Scenario: sc, Steps: rep.Result.Schedule})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, replayed.Result.Verdict)
	require.Equal(t, rep.Result.Failure.Kind, replayed.Result.Failure.Kind)
	require.Equal(t, *rep.Result.Failure, *replayed.Result.Failure)
	require.Equal(t, rep.Preemptions, replayed.Preemptions)

	if strategy != check.StrategyAuto {
		return // (the same shrinker: once is enough)
	}
	again := exploreWith(t, strategy, v, a, c, true)
	require.Equal(t, rep.Config.Scenario.String(), again.Config.Scenario.String())
	require.Equal(t, rep.Result.Schedule, again.Result.Schedule)
	require.Equal(t, rep.Shrink.String(), again.Shrink.String())
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// preemptionsByThread counts, for each thread, how often a schedule
// switches away from it while it could still run.
func preemptionsByThread(t *testing.T, rep *check.Report) map[int]int {
	t.Helper()
	sys := check.NewSystem(rep.Program)
	by := map[int]int{}
	last := sched.ThreadID(-1)
	for i, th := range rep.Result.Schedule {
		require.Equal(t, sched.Runnable, sys.Status(th), "step %d", i+1)
		if last >= 0 && th != last && sys.Status(last) == sched.Runnable {
			by[int(last)]++
		}
		sys.Step(th)
		last = th
	}
	return by
}

// TestShrinkNaiveOnePreemptionPerThread: naive's minimal counterexample,
// from small and large scenarios, is the seed's race: two threads, one
// call, and no thread preempted more than once.
func TestShrinkNaiveOnePreemptionPerThread(t *testing.T) {
	naive := variants.All()[0]
	require.Equal(t, "naive", naive.Protocol.Name)
	minimal, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	for _, a := range model.Atomicities() {
		for _, sh := range []scenario.Shape{
			scenario.DefaultShape,
			{Threads: 4, Blocks: 1, Calls: 2, Modules: 1, Names: 1},
			{Threads: 8, Blocks: 2, Calls: 2, Modules: 2, Names: 2, Nest: 1, Syncthreads: true},
		} {
			t.Run(a.String()+"/"+shapeName(sh), func(t *testing.T) {
				rep := exploreCase(t, naive, a, shrinkCase{shape: &sh}, true)
				require.Equal(t, check.KindUseSawReal, rep.Result.Failure.Kind)
				require.Equal(t, minimal.String(), rep.Config.Scenario.String())
				require.Equal(t, scenario.DefaultShape, *rep.Config.Shape)
				by := preemptionsByThread(t, rep)
				for th, n := range by {
					require.LessOrEqual(t, n, 1, "%s is preempted %d times", rep.Program.ThreadName(th), n)
				}
				require.Equal(t, 2, rep.Preemptions)
				require.Equal(t, 22, len(rep.Result.Schedule))
			})
		}
	}
}

// TestShrinkFlagsThatDoNotReproduce: a random search finds a violation
// that shrinks to two threads and one call; the same random search of
// that scenario does not find the kind (it finds another, or none), so
// the shrunk scenario's flags do not print this counterexample again,
// and the report says so (the command then keeps the flags given).
func TestShrinkFlagsThatDoNotReproduce(t *testing.T) {
	p, err := check.Lookup("refcount-unregistered")
	require.NoError(t, err)
	sh := scenario.Shape{Threads: 4, Blocks: 1, Calls: 2, Modules: 1, Names: 1}
	sc, err := sh.Build()
	require.NoError(t, err)
	cfg := check.Config{Protocol: p, Scenario: sc, Shape: &sh, Atomicity: model.FreeThreadedOverwrite,
		Strategy: check.StrategyRandom, Runs: 20, Seed: 6, Workers: 1}
	plain, err := check.Explore(cfg)
	require.NoError(t, err)
	require.Equal(t, sched.Violation, plain.Result.Verdict)
	cfg.Shrink = true
	rep, err := check.Explore(cfg)
	require.NoError(t, err)
	require.Equal(t, plain.Result.Failure.Kind, rep.Result.Failure.Kind)
	require.Equal(t, []check.Change{{Dim: "threads", From: "4", To: "2"}, {Dim: "calls", From: "2", To: "1"}}, rep.Shrink.Changes)
	require.False(t, rep.Shrink.FlagsReproduce)

	small := cfg
	small.Scenario, small.Shape, small.Shrink = rep.Config.Scenario, rep.Config.Shape, false
	other, err := check.Explore(small)
	require.NoError(t, err)
	if other.Result.Verdict == sched.Violation {
		require.NotEqual(t, rep.Result.Failure.Kind, other.Result.Failure.Kind)
	}
}

// TestShrinkHostsAndHostCalls: the world's host dimensions shrink like
// the others. Two hosts that launch at once fail every variant with
// use-saw-other-fake, which needs two hosts but neither the host's own
// calls nor more than one thread.
func TestShrinkHostsAndHostCalls(t *testing.T) {
	byName := map[string]variants.Variant{}
	for _, v := range variants.All() {
		byName[v.Protocol.Name] = v
	}
	big := scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Hosts: 2}
	rep := exploreCase(t, byName["merged"], model.GIL, shrinkCase{shape: &big}, true)
	require.Equal(t, check.KindUseSawOtherFake, rep.Result.Failure.Kind)
	require.Equal(t, 2, rep.Config.Shape.Hosts)
	require.False(t, rep.Config.Shape.HostCalls)
	require.Equal(t, 1, rep.Config.Shape.Threads)

	three := scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Hosts: 3}
	rep = exploreCase(t, byName["naive"], model.GIL, shrinkCase{shape: &three}, true)
	require.Equal(t, check.KindUseSawOtherFake, rep.Result.Failure.Kind)
	require.Equal(t, 2, rep.Config.Shape.Hosts)
	require.Contains(t, rep.Shrink.String(), "hosts 3 -> 2")
}

// TestShrinkBranchesAndRepeats: a scenario file's branches on the thread
// index and its repeat counts shrink (its other statements do not; a
// repeat of 1 becomes its body), and
// -branch shrinks like the other switches. naive's race needs neither a
// branch nor a second call: every variant's swap is blind to the arm.
func TestShrinkBranchesAndRepeats(t *testing.T) {
	byName := map[string]variants.Variant{}
	for _, v := range variants.All() {
		byName[v.Protocol.Name] = v
	}
	rep := exploreCase(t, byName["naive"], model.GIL, shrinkCase{file: "branching.txt"}, true)
	require.Equal(t, check.KindUseSawReal, rep.Result.Failure.Kind)
	require.False(t, rep.Config.Scenario.Branches(), "a branch is left:\n%s", rep.Config.Scenario)
	require.Contains(t, rep.Shrink.String(), "branches 2 -> 0")
	require.Contains(t, rep.Shrink.String(), "repeats 2 -> 0")
	require.NotContains(t, rep.Config.Scenario.String(), "repeat")

	branch := scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Branch: true}
	rep = exploreCase(t, byName["naive"], model.GIL, shrinkCase{shape: &branch}, true)
	require.Equal(t, check.KindUseSawReal, rep.Result.Failure.Kind)
	require.False(t, rep.Config.Shape.Branch)
	require.Contains(t, rep.Shrink.String(), "branch on -> off")
}
