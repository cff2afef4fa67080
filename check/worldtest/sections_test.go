package worldtest_test

import (
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
	"swapcheck/swap"
)

// The critical sections as transactions (model/reduce_sections.go),
// held against the world of instructions: their closures are persistent
// when run, POR over them reaches every end state the unreduced search
// of instructions reaches, and Explore's verdicts and kinds, which auto
// takes from them where they apply, are the unreduced search's.

// sectionProtocols are the protocols whose worlds the sections can cover.
var sectionProtocols = []*model.Protocol{swap.Merged, swap.GlobalLock}

// sectionShapes are small shapes of one host with no raise, each
// variant's world one the sections cover under gil.
var sectionShapes = map[string]scenario.Shape{
	"-threads 2":                                {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
	"-threads 3":                                {Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
	"-threads 2 -calls 2 -modules 2":            {Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1},
	"-threads 2 -calls 1 -modules 2 -nest 1":    {Threads: 2, Blocks: 1, Calls: 1, Modules: 2, Names: 1, Nest: 1},
	"-threads 2 -nest 1 -names 2":               {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 2, Nest: 1},
	"-threads 2 -blocks 2":                      {Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 1},
	"-threads 2 -host-calls -modules 2":         {Threads: 2, Blocks: 1, Calls: 1, Modules: 2, Names: 1, HostCalls: true},
	"-threads 2 -calls 2 -syncthreads":          {Threads: 2, Blocks: 1, Calls: 2, Modules: 1, Names: 1, Syncthreads: true},
	"-threads 3 -calls 2 -modules 2 -nest 1":    {Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Nest: 1},
	"-threads 2 -calls 2 -modules 2 -names 2":   {Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 2},
	"-threads 3 -calls 1 -modules 2 -nest 1 -b": {Threads: 3, Blocks: 2, Calls: 1, Modules: 2, Names: 1, Nest: 1},
}

// sectionScenarioFiles are testdata/scenarios' scenarios.
func sectionScenarioFiles(t *testing.T) map[string]*scenario.Scenario {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := map[string]*scenario.Scenario{}
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		sc, err := scenario.Parse(f)
		f.Close()
		require.NoError(t, err, name)
		out[filepath.Base(name)] = sc
	}
	return out
}

// sectionWorlds are the worlds of sectionProtocols of sectionShapes and
// of the scenario files, every atomicity mode, that the sections cover
// (covered) or do not (others).
func sectionWorlds(t *testing.T) (covered, others map[string]*model.Program) {
	covered, others = map[string]*model.Program{}, map[string]*model.Program{}
	scenarios := sectionScenarioFiles(t)
	for flags, sh := range sectionShapes {
		scenarios[flags] = build(t, sh)
	}
	for name, sc := range scenarios {
		for _, p := range sectionProtocols {
			for _, a := range atomicities {
				prog := program(t, sc, p, a)
				key := p.Name + " " + a.String() + " " + name
				if prog.Sections() {
					covered[key] = prog
				} else {
					others[key] = prog
				}
			}
		}
	}
	return covered, others
}

// sectionFinals is the end states POR over the sections (sections true)
// or the unreduced search of instructions reaches on prog, executions
// going on past their failures, and the states it stored.
func sectionFinals(prog *model.Program, sections bool) ([]string, int64) {
	f := &porFinals{check.NewSystem(prog), map[string]bool{}, sections}
	var res sched.Result
	if sections {
		res = sched.POR{Workers: 1}.Run(f, sched.Limits{})
	} else {
		res = sched.States{}.Run(f, sched.Limits{})
	}
	return slices.Sorted(maps.Keys(f.seen)), res.Stats.States
}

// TestSectionsCoverTheirWorlds: the sections cover gil worlds of one
// host with no raise and no fault, and no other (Program.Sections).
func TestSectionsCoverTheirWorlds(t *testing.T) {
	covered, others := sectionWorlds(t)
	for name, prog := range covered {
		require.Contains(t, name, " gil ", name)
		sc := prog.Scenario
		require.Equal(t, 1, sc.NumHosts(), name)
		require.NotContains(t, name, "raise", name)
	}
	for _, name := range []string{"two-hosts.txt", "aborted-launch.txt", "interrupt.txt", "raise-fault.txt", "lingering-thread.txt"} {
		require.Contains(t, others, "merged gil "+name)
		require.Contains(t, others, "global-lock gil "+name)
	}
	require.GreaterOrEqual(t, len(covered), 2*len(sectionShapes), "the shapes are all covered")
	for _, p := range []*model.Protocol{swap.RefcountDel, swap.RefcountUnregistered, swap.Proposed} {
		require.False(t, program(t, build(t, scenario.DefaultShape), p, model.GIL).Sections(), p.Name)
	}
}

// TestSectionsArePersistent: in every world the sections cover, every
// closure POR can take over them is persistent, run as the other rules'
// are (persistenceBreak), three sections or steps deep.
func TestSectionsArePersistent(t *testing.T) {
	sequentialOnly(t)
	covered, _ := sectionWorlds(t)
	for _, name := range slices.Sorted(maps.Keys(covered)) {
		if !testenv.Long() && strings.Count(name, "-threads 3") > 0 {
			continue // SWAPCHECK_LONG's
		}
		require.Empty(t, persistenceBreakFrom(&porFinals{check.NewSystem(covered[name]), map[string]bool{}, true}), name)
	}
}

// TestSectionsKeepEndStates: POR over the sections reaches every end
// state of the unreduced search of instructions, up to symmetry, in every
// world the sections cover, on far fewer states in some.
func TestSectionsKeepEndStates(t *testing.T) {
	sequentialOnly(t)
	covered, _ := sectionWorlds(t)
	reduced := 0
	for _, name := range slices.Sorted(maps.Keys(covered)) {
		want, all := sectionFinals(covered[name], false)
		got, stored := sectionFinals(covered[name], true)
		require.Equal(t, want, got, "%s: the sections' end states differ from the instructions'", name)
		if stored*4 < all {
			reduced++
		}
	}
	require.Positive(t, reduced, "the sections reduced no world fourfold: the test checks little")
}

// TestSectionsAgreeOnVerdicts: on every world of sectionProtocols
// (covered or not), Explore's default, which proves over the sections
// where they apply, gives the verdict of the unreduced search, and says
// which search ran. A violation the sections meet is searched for again
// in the world of instructions, as before they were (its trace and kind
// come from there: the kinds of two searches that meet several differ
// as the searches do).
func TestSectionsAgreeOnVerdicts(t *testing.T) {
	sequentialOnly(t)
	covered, others := sectionWorlds(t)
	all := maps.Clone(covered)
	maps.Copy(all, others)
	for _, name := range slices.Sorted(maps.Keys(all)) {
		prog := all[name]
		want, got := exploreBoth(t, prog)
		require.Equal(t, want.Result.Verdict, got.Result.Verdict, name)
		plan := strings.Join(got.Plan, "\n")
		require.Equal(t, prog.Sections(), strings.Contains(plan, "critical sections"), "%s: %v", name, got.Plan)
		if prog.Sections() && got.Result.Verdict == sched.Violation {
			require.Contains(t, plan, "searching again step by step", name)
		}
	}
}

// exploreBoth is Explore's unreduced search (states) of prog, and its
// default (auto), on one worker.
func exploreBoth(t *testing.T, prog *model.Program) (want, got *check.Report) {
	cfg := check.Config{Protocol: prog.Protocol, Scenario: prog.Scenario, Atomicity: prog.Atomicity, Workers: 1}
	cfg.Strategy = check.StrategyStates
	want, err := check.Explore(cfg)
	require.NoError(t, err)
	cfg.Strategy = check.StrategyAuto
	got, err = check.Explore(cfg)
	require.NoError(t, err)
	return want, got
}

// TestSectionsOnRandomScenarios: on random scenarios (genSearchScenario),
// the sections' end states and Explore's verdicts are the instructions'.
func TestSectionsOnRandomScenarios(t *testing.T) {
	sequentialOnly(t)
	rapid.Check(t, func(rt *rapid.T) {
		sc := genSearchScenario(rt)
		p := rapid.SampledFrom(sectionProtocols).Draw(rt, "protocol")
		prog, err := model.NewProgram(sc, p, model.GIL)
		require.NoError(rt, err)
		if !prog.Sections() {
			rt.Skip("a world the sections do not cover")
		}
		want, _ := sectionFinals(prog, false)
		got, _ := sectionFinals(prog, true)
		require.Equal(rt, want, got)
		a, b := exploreBoth(t, prog)
		require.Equal(rt, a.Result.Verdict, b.Result.Verdict)
	})
}

// TestBrokenSectionsAreCaught: sections taken to commute in every world
// (model.BreakSectionsWorldForTest) give a wrong verdict on some world
// the argument does not cover, and sections that leave orig behind
// (model.UnsettleSectionsForTest) give a closure that is not persistent.
func TestBrokenSectionsAreCaught(t *testing.T) {
	sequentialOnly(t)
	_, others := sectionWorlds(t)
	t.Run("any world", func(t *testing.T) {
		defer model.BreakSectionsWorldForTest()()
		var wrong []string
		for _, name := range slices.Sorted(maps.Keys(others)) {
			if others[name].Atomicity != model.GIL {
				continue // the hosts, raises and faults of gil worlds
			}
			want, got := exploreBoth(t, others[name])
			if want.Result.Verdict != got.Result.Verdict {
				wrong = append(wrong, name)
			}
		}
		t.Logf("sections taken to commute in every world give wrong verdicts on %s", strings.Join(wrong, ", "))
		require.NotEmpty(t, wrong)
	})
	t.Run("orig left behind", func(t *testing.T) {
		defer model.UnsettleSectionsForTest()()
		covered, _ := sectionWorlds(t)
		caught := false
		for _, name := range slices.Sorted(maps.Keys(covered)) {
			if strings.Contains(name, "-threads 3") {
				continue
			}
			if persistenceBreakFrom(&porFinals{check.NewSystem(covered[name]), map[string]bool{}, true}) != "" {
				caught = true
				break
			}
		}
		require.True(t, caught, "sections that leave orig behind went unseen")
	})
}
