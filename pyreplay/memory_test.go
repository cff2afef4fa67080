package pyreplay_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// memoryShape is the flags' shape of the simulator's other races:
// -atomics add,sub or -shared, with -calls 0.
func memoryShape(ops []scenario.AtomicOp, shared bool) scenario.Shape {
	sh := shape(2)
	sh.Calls, sh.Atomics, sh.Shared = 0, ops, shared
	return sh
}

// The simulator's other races (issue 30), as the CLI finds them by
// default (shrunk), replay on numba 0.56.4's real simulator with its own
// swap (naive's) on every run, and print the wrong value: cuda.atomic.add
// and cuda.atomic.sub on a[0] leave a[0] = 1, and two threads of a block
// get different arrays from one cuda.shared.array line. Twice each by
// default, 20 runs each with SWAPCHECK_LONG.
func TestNumbaReplayOfTheSimulatorsRaces(t *testing.T) {
	t.Parallel()
	runs := count(2, 20)
	pythonWithNumba(t)
	for _, tc := range []struct {
		name  string
		sh    scenario.Shape
		kind  string
		wants []string
	}{
		{"atomics", memoryShape([]scenario.AtomicOp{scenario.AtomicAdd, scenario.AtomicSub}, false), check.KindLostUpdate, []string{
			"array: a = [1]",
			"observed lost-update: a[0] = 1 at the end (T0 atomic.add -> 0; T1 atomic.sub -> 0), but no order of these atomics, one at a time, gives that: every order ends with a[0] in [0]",
		}},
		{"shared", memoryShape(nil, true), check.KindSharedNotShared, []string{
			"observed shared-not-shared: T1 and T0 of launch 1 got different arrays from cuda.shared.array at ",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := check.Lookup("naive")
			require.NoError(t, err)
			rep, err := check.Explore(check.Config{Protocol: pr, Scenario: buildScenario(t, tc.sh), Atomicity: model.GIL, Shrink: true})
			require.NoError(t, err)
			require.Equal(t, sched.Violation, rep.Result.Verdict)
			require.Equal(t, tc.kind, rep.Result.Failure.Kind)
			script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })
			for i, r := range runNumba(t, script, runs, "--target", "numba") {
				require.Equal(t, 1, r.code, "run %d of %d:\n%s", i+1, runs, r.stdout)
				require.Contains(t, r.stdout, "its own swapped_cuda_module (naive, ", "run %d", i+1)
				require.Contains(t, r.stdout, fmt.Sprintf("replay: all %d turns forced", len(rep.Result.Schedule)), "run %d", i+1)
				for _, w := range tc.wants {
					require.Contains(t, r.stdout, w, "run %d", i+1)
				}
				require.Contains(t, r.stdout, "verdict: reproduced "+tc.kind, "run %d", i+1)
			}
		})
	}
}

// memoryKinds walks p's checked system along a random full schedule and
// returns it with the violation kinds the invariants report on the way
// and at the end (check.System: what a search reports).
func memoryKinds(t *testing.T, p *model.Program, seed uint64) ([]sched.ThreadID, []string) {
	t.Helper()
	s := check.NewSystem(p)
	rng := rand.New(rand.NewPCG(seed, 0))
	var sch []sched.ThreadID
	var kinds []string
	note := func(f *sched.Failure) {
		if f != nil && !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	for {
		runnable := sched.RunnableThreads(s)
		if len(runnable) == 0 {
			break
		}
		require.Less(t, len(sch), 100_000, "the random walk did not end")
		u := runnable[rng.IntN(len(runnable))]
		note(s.Step(u))
		sch = append(sch, u)
	}
	note(s.Final())
	slices.Sort(kinds)
	return sch, kinds
}

// On random full schedules of the atomics and shared-array scenario
// files, the replay on the stand-in observes exactly the violation kinds
// the model's invariants report: an update lost, or none (the same-lock
// file, and the orders in which the racing atomics do not overlap), and
// a shared array split, or not. So the script's judge neither misses
// what the model sees nor sees what it does not. By default 3 schedules
// of each file; SWAPCHECK_LONG=1 12 (24 took 85 s of CI's budget).
func TestReplayOfMemoryObservesWhatTheModelSees(t *testing.T) {
	t.Parallel()
	py := testenv.Python311(t)
	seeds := count(3, 12)
	_, files := scenarioFiles(t)
	for _, name := range []string{"atomics-add-sub.txt", "atomics-same-lock.txt", "shared-array.txt", "shared-barrier.txt", "array-elements.txt"} {
		t.Run(name, func(t *testing.T) {
			sc := files[name]
			require.NotNil(t, sc, name)
			pr, err := check.Lookup("naive")
			require.NoError(t, err)
			p, err := model.NewProgram(sc, pr, model.GIL)
			require.NoError(t, err)
			var scripts []string
			var wants [][]string
			seen := map[string]bool{}
			for seed := range uint64(seeds) {
				sch, want := memoryKinds(t, p, seed+1)
				scripts = append(scripts, writeScript(t, func(b *bytes.Buffer) error { return pyreplay.EmitSchedule(b, p, sch, nil) }))
				wants = append(wants, want)
				seen[fmt.Sprint(want)] = true
			}
			for i, r := range runPython(py, scripts) {
				require.Contains(t, r.stdout, "replay: all ", "seed %d:\n%s", i+1, r.stdout)
				require.Equal(t, wants[i], observedKinds(r.stdout), "seed %d:\n%s", i+1, r.stdout)
			}
			t.Logf("%s: %d schedules, verdicts seen: %v", name, seeds, seen)
		})
	}
}

// Every pair of atomic operations on one element, each thread running
// one: where the model loses an update the replay on the stand-in does
// too, at every operation's lines (inc's and dec's both arms included,
// by their values), so every method's anchors are found. By default each
// operation meets one of add, inc and dec, taken in turn (every
// operation runs first in a pair, each of the three second);
// SWAPCHECK_LONG=1 runs every pair.
func TestReplayOfEveryAtomicPair(t *testing.T) {
	t.Parallel()
	py := testenv.Python311(t)
	pr, err := check.Lookup("naive")
	require.NoError(t, err)
	var scripts, names []string
	var steps []int
	seconds := []scenario.AtomicOp{scenario.AtomicAdd, scenario.AtomicInc, scenario.AtomicDec}
	for a := scenario.AtomicAdd; a <= scenario.AtomicCas; a++ {
		var pairs []scenario.AtomicOp // by default the first in turn from a's place that a can race
		for k := range seconds {
			b := seconds[(int(a)+k)%len(seconds)]
			if a.Info().Lock != b.Info().Lock && (long() || len(pairs) == 0) {
				pairs = append(pairs, b)
			}
		}
		for _, b := range pairs {
			text := fmt.Sprintf("threads 2\narray a 1\nmodule kernels cuda\nkernel: if tid == 0: %s; else: %s; end\n",
				atomicStmt(a, 1), atomicStmt(b, 2))
			sc, err := scenario.Parse(strings.NewReader(text))
			require.NoError(t, err, text)
			rep, err := check.Explore(check.Config{Protocol: pr, Scenario: sc, Atomicity: model.GIL})
			require.NoError(t, err)
			if rep.Result.Verdict != sched.Violation {
				continue
			}
			require.Equal(t, check.KindLostUpdate, rep.Result.Failure.Kind, text)
			scripts = append(scripts, writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) }))
			names = append(names, fmt.Sprintf("%s with %s", a, b))
			steps = append(steps, len(rep.Result.Schedule))
		}
	}
	if long() {
		require.Greater(t, len(scripts), 30)
	} else {
		require.Greater(t, len(scripts), 8)
	}
	for i, r := range runPython(py, scripts) {
		require.Equal(t, 1, r.code, "%s:\n%s", names[i], r.stdout)
		require.Contains(t, r.stdout, fmt.Sprintf("replay: all %d turns forced", steps[i]), names[i])
		require.Contains(t, r.stdout, "verdict: reproduced lost-update", names[i])
	}
}

// atomicStmt is a scenario statement of op on a[0] with value v (cas and
// compare_and_swap compare with 0, which a[0] holds at first).
func atomicStmt(op scenario.AtomicOp, v int) string {
	switch {
	case op == scenario.AtomicCompareAndSwap:
		return fmt.Sprintf("atomic.%s a 0 %d", op, v)
	case op.Info().HasCmp:
		return fmt.Sprintf("atomic.%s a 0 0 %d", op, v)
	}
	return fmt.Sprintf("atomic.%s a 0 %d", op, v)
}
