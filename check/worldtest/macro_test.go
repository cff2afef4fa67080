package worldtest_test

import (
	"fmt"
	"maps"
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

// porFinals is finals (interrupt_test.go) that keeps the model's futures,
// so that sched.POR reduces it as it does the checked system: the end
// states a search reaches, with its persistent sets. Its executions go on
// past every failure, so its futures do not assume that a death ends one
// (MayConflict's deathsFail false).
//
// With sections, each critical section of the swap is one step and a
// thread that starts one runs alone, as check.Sections makes them
// (model/reduce_sections.go).
type porFinals struct {
	*check.System
	seen     map[string]bool
	sections bool
}

func (f *porFinals) Step(t sched.ThreadID) *sched.Failure {
	step := func() *sched.Failure { f.System.Step(t); return nil }
	if f.sections {
		return check.StepSection(f.World(), t, step)
	}
	return step()
}

// AppendRunnable and Status make a deadlock an end state like any other
// (its threads blocked for good are done): the searches go on past it as
// past failures, where a deadlock would end them, in whatever order each
// met it.
func (f *porFinals) AppendRunnable(buf []sched.ThreadID) ([]sched.ThreadID, bool) {
	l, _ := f.System.AppendRunnable(buf)
	return l, len(l) == len(buf)
}
func (f *porFinals) Status(t sched.ThreadID) sched.Status {
	st := f.System.Status(t)
	if st == sched.Blocked {
		if l, _ := f.System.AppendRunnable(nil); len(l) == 0 {
			return sched.Done
		}
	}
	return st
}
func (f *porFinals) Final() *sched.Failure {
	// up to symmetry and dead slots: the searches keep one state of each
	// orbit, whichever they met first
	f.seen[string(f.AppendCanonicalKey(nil))] = true
	return nil
}
func (f *porFinals) Clone() sched.System {
	return &porFinals{f.System.Clone().(*check.System), f.seen, f.sections}
}
func (f *porFinals) MayConflict(p, q sched.ThreadID, frozen []bool) bool {
	if f.sections && f.World().CommutingSection(int(p), int(q)) {
		return false
	}
	return f.World().MayConflict(int(p), int(q), frozen, false)
}
func (f *porFinals) CopyFrom(src sched.System) { f.System.CopyFrom(src.(*porFinals).System) }
func (f *porFinals) TakePeeked(parent sched.System, t sched.ThreadID, note sched.PeekNote) {
	f.System.TakePeeked(parent.(*porFinals).System, t, note)
}

// porEndStates are the end states s reaches on prog (every state expanded
// as s expands it; no failure ends an execution).
func porEndStates(prog *model.Program, s sched.Strategy) []string {
	ends, _ := boundedEndStates(prog, s, sched.Limits{})
	return ends
}

// boundedEndStates is porEndStates within lim, and whether the search
// was complete.
func boundedEndStates(prog *model.Program, s sched.Strategy, lim sched.Limits) ([]string, bool) {
	f := &porFinals{check.NewSystem(prog), map[string]bool{}, false}
	res := s.Run(f, lim)
	return slices.Sorted(maps.Keys(f.seen)), res.Verdict != sched.Incomplete
}

// worldsMissingEndStates names the worlds of progs where POR's end states
// are not the unreduced search's, with how many each reaches.
func worldsMissingEndStates(progs map[string]*model.Program) []string {
	var missed []string
	for _, name := range slices.Sorted(maps.Keys(progs)) {
		want, got := porEndStates(progs[name], sched.States{}), porEndStates(progs[name], sched.POR{Workers: 1})
		if !slices.Equal(want, got) {
			missed = append(missed, fmt.Sprintf("%s (%d of %d end states)", name, len(got), len(want)))
		}
	}
	return missed
}

// macroWorlds are worlds of every variant under gil-breaker, with several
// threads that can keep the GIL across steps.
func macroWorlds(t *testing.T) map[string]*model.Program {
	shapes := map[string]scenario.Shape{
		"-threads 3":                        {Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		"-threads 2 -calls 2 -modules 2":    {Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1},
		"-threads 2 -nest 1 -names 2":       {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 2, Nest: 1},
		"-threads 2 -calls 2 -syncthreads":  {Threads: 2, Blocks: 1, Calls: 2, Modules: 1, Names: 1, Syncthreads: true},
		"-threads 2 -blocks 2":              {Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 1},
		"-threads 1 -hosts 2 -calls 2":      {Threads: 1, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Hosts: 2},
		"-threads 2 -host-calls -modules 2": {Threads: 2, Blocks: 1, Calls: 1, Modules: 2, Names: 1, HostCalls: true},
	}
	if !testenv.Long() {
		for _, k := range []string{"-threads 2 -calls 2 -syncthreads", "-threads 2 -blocks 2", "-threads 2 -host-calls -modules 2"} {
			delete(shapes, k)
		}
	}
	return everyVariant(t, shapes, model.GILBreaker)
}

// everyVariant is every variant's program of each shape (named by its
// flags) under a, named "variant flags".
func everyVariant(t *testing.T, shapes map[string]scenario.Shape, a model.Atomicity) map[string]*model.Program {
	progs := map[string]*model.Program{}
	for _, p := range check.Protocols() {
		for flags, sh := range shapes {
			sc, err := sh.Build()
			require.NoError(t, err)
			prog, err := model.NewProgram(sc, p, a)
			require.NoError(t, err)
			progs[p.Name+" "+flags] = prog
		}
	}
	return progs
}

// TestPORMacroStepsKeepEndStates: under gil-breaker, POR's persistent
// sets, worked out from macro steps (reduce_futures.go, "Macro steps"),
// reach every end state the unreduced search reaches, up to symmetry
// (Godefroid's theorem 4.3: a persistent-set search keeps every end
// state), in every variant's worlds, executions going on past their
// failures; and the checked searches give the same verdict, POR on no
// more states. With SWAPCHECK_LONG=1, on more worlds.
func TestPORMacroStepsKeepEndStates(t *testing.T) {
	sequentialOnly(t)
	progs := macroWorlds(t)
	reduced := 0
	for _, name := range slices.Sorted(maps.Keys(progs)) {
		prog := progs[name]
		want, got := porEndStates(prog, sched.States{}), porEndStates(prog, sched.POR{Workers: 1})
		require.Equal(t, want, got, "%s: POR's end states differ from the unreduced search's", name)
		st := sched.States{}.Run(check.NewSystem(prog), sched.Limits{})
		por := sched.POR{Workers: 1}.Run(check.NewSystem(prog), sched.Limits{})
		require.Equal(t, st.Verdict, por.Verdict, name)
		if st.Verdict != sched.Verified {
			require.Equal(t, st.Failure.Kind, por.Failure.Kind, name)
			continue
		}
		require.LessOrEqual(t, por.Stats.States, st.Stats.States, name)
		if por.Stats.States < st.Stats.States {
			reduced++
		}
	}
	require.Positive(t, reduced, "POR reduced no world under gil-breaker: the test checks nothing")
}

// TestBrokenMacroStepsAreCaught: with POR asking of a thread's next step
// alone, not of the steps it takes while it keeps the GIL
// (model.BreakMacroForTest), the searches above miss end states.
func TestBrokenMacroStepsAreCaught(t *testing.T) {
	sequentialOnly(t)
	defer model.BreakMacroForTest()()
	missed := worldsMissingEndStates(macroWorlds(t))
	t.Logf("the broken macro steps miss end states on %s", strings.Join(missed, ", "))
	require.NotEmpty(t, missed, "a POR that ignores the steps a thread takes while it keeps the GIL went unseen")
}

// TestPORMacroStepsOnRandomScenarios: the end states of POR under
// gil-breaker are the unreduced search's on random scenarios
// (genSearchScenario: nested calls, syncthreads, raises, branches, two
// blocks, launches or hosts) of every variant. A scenario whose
// unreduced search outruns randomExecutions is skipped: past their
// failures a few of them have tens of millions of states.
func TestPORMacroStepsOnRandomScenarios(t *testing.T) {
	const randomExecutions = 200_000
	sequentialOnly(t)
	protocols := check.Protocols()
	rapid.Check(t, func(rt *rapid.T) {
		sc := genSearchScenario(rt)
		p := protocols[rapid.IntRange(0, len(protocols)-1).Draw(rt, "protocol")]
		requireRandomEndStates(rt, sc, p, model.GILBreaker, randomExecutions)
	})
}

// requireRandomEndStates fails rt unless POR reaches the end states of
// the unreduced search on sc, run by p in mode a, and skips rt where sc
// is not a program or the unreduced search outruns executions.
func requireRandomEndStates(rt *rapid.T, sc *scenario.Scenario, p *model.Protocol, a model.Atomicity, executions int64) {
	prog, err := model.NewProgram(sc, p, a)
	if err != nil {
		rt.Skipf("not a program: %v", err)
	}
	want, complete := boundedEndStates(prog, sched.States{}, sched.Limits{MaxExecutions: executions})
	if !complete {
		rt.Skipf("the unreduced search outran %d executions", executions)
	}
	got := porEndStates(prog, sched.POR{Workers: 1})
	if !slices.Equal(want, got) {
		rt.Fatalf("%s %s: POR reaches %d end states, the unreduced search %d, on\n%s", p.Name, a, len(got), len(want), sc)
	}
}
