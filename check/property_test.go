package check_test

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// The property suites (go test ./check -run Property, sized by
// -rapid.checks): rapid draws a whole scenario and then the schedule,
// one scheduling choice at a time, so that its shrinking reduces both. A
// failing property saves rapid's fail file (testdata/rapid/, replayed
// before any new draw) and prints the explore commands that reproduce
// its counterexample.

// genOptions says what drawScenario may draw: each part of the world is
// one field, off where a property demands a world without it.
type genOptions struct {
	// raise: bodies may raise (a kernel's own exception aborts its launch)
	raise bool
	// maxHosts: host threads, each launching at once
	maxHosts int
	// branch: bodies may branch on the thread's index and repeat
	branch bool
	// faults: the search-chosen faults the scenario may hold, each drawn
	// in or out, with a bound of 1 to 2 per execution
	faults scenario.Faults
	// memory: the kernel may make atomics on an array a of 2 elements,
	// allocate shared arrays and store to and load from them (with one
	// host), the simulator fixed (atomics-one-lock, shared-setdefault)
	memory bool
}

// genWorld is the whole world a property about every situation draws
// from: raising bodies, several hosts, branches and every fault kind.
func genWorld(t *rapid.T) genOptions {
	var all scenario.Faults
	for _, k := range scenario.FaultKinds {
		all = all.With(k.Fault)
	}
	return genOptions{raise: rapid.Bool().Draw(t, "raise"), maxHosts: scenario.MaxHosts, branch: true, faults: all, memory: true}
}

// drawScenario draws a small valid scenario: 1 to 3 threads, 1 or 2
// blocks and launches, 1 or 2 modules with 1 or 2 names, up to 3 device
// functions (a call goes only to a function defined later, so calls nest
// but never cycle) and bodies of up to 3 statements, and sometimes the
// host's own device calls around its launches.
func drawScenario(t *rapid.T, o genOptions) *scenario.Scenario {
	sc := &scenario.Scenario{
		Threads:  rapid.IntRange(1, 3).Draw(t, "threads"),
		Blocks:   rapid.IntRange(1, 2).Draw(t, "blocks"),
		Launches: rapid.IntRange(1, 2).Draw(t, "launches"),
	}
	if h := rapid.IntRange(1, max(o.maxHosts, 1)).Draw(t, "hosts"); h > 1 {
		sc.Hosts = h
	}
	pool := []string{"cuda", "cu"}
	for m := range rapid.IntRange(1, 2).Draw(t, "modules") {
		names := pool[:rapid.IntRange(1, len(pool)).Draw(t, "names")]
		sc.Modules = append(sc.Modules, scenario.Module{Name: []string{"kernels", "dev1"}[m], Names: names})
	}
	nf := rapid.IntRange(0, 3).Draw(t, "functions")
	kinds := []scenario.OpKind{scenario.OpUse, scenario.OpCall, scenario.OpSync}
	if o.raise {
		kinds = append(kinds, scenario.OpRaise)
	}
	if o.branch {
		kinds = append(kinds, scenario.OpIf, scenario.OpRepeat)
	}
	memory := o.memory && sc.NumHosts() == 1
	if memory {
		sc.Arrays = []scenario.Array{{Name: "a", Size: 2}}
		sc.Fixes = scenario.FixAtomicsOneLock | scenario.FixSharedSetdefault
	}
	sites := 0
	topSite := -1 // the last site drawn at the kernel's top level: stores and loads go to it
	// body draws a statement list of module mod's code: calls go to
	// functions callFrom and later; branches and repeats nest two deep.
	var body func(mod, callFrom, depth int) []scenario.Stmt
	body = func(mod, callFrom, depth int) []scenario.Stmt {
		var out []scenario.Stmt
		for range rapid.IntRange(0, 3).Draw(t, "statements") {
			kind := rapid.SampledFrom(kinds).Draw(t, "statement")
			if (kind == scenario.OpIf || kind == scenario.OpRepeat) && depth >= 2 {
				kind = scenario.OpUse
			}
			if memory && callFrom == 0 && rapid.IntRange(0, 3).Draw(t, "memory statement") == 0 { // the kernel's
				kinds := []scenario.OpKind{scenario.OpAtomic, scenario.OpShared}
				if depth == 0 && topSite >= 0 {
					kinds = append(kinds, scenario.OpStore, scenario.OpLoad)
				}
				kind = rapid.SampledFrom(kinds).Draw(t, "memory kind")
			}
			switch kind {
			case scenario.OpAtomic:
				op := scenario.AtomicOp(rapid.IntRange(int(scenario.AtomicAdd), int(scenario.AtomicCas)).Draw(t, "atomic"))
				st := scenario.Stmt{Kind: scenario.OpAtomic, Atomic: op, Value: rapid.IntRange(1, 3).Draw(t, "value"), Cmp: rapid.IntRange(0, 2).Draw(t, "compare")}
				if op.Info().HasIndex {
					st.Index = rapid.IntRange(0, 1).Draw(t, "index")
				}
				if !op.Info().HasCmp {
					st.Cmp = 0
				}
				out = append(out, st)
			case scenario.OpShared:
				out = append(out, scenario.Stmt{Kind: scenario.OpShared, Target: "s", Size: 2, Site: sites})
				if depth == 0 {
					topSite = sites
				}
				sites++
			case scenario.OpStore, scenario.OpLoad:
				out = append(out, scenario.Stmt{Kind: kind, Target: "s", Size: 2, Site: topSite,
					Index: rapid.IntRange(0, 1).Draw(t, "element"), Value: rapid.IntRange(1, 3).Draw(t, "stored")})
			case scenario.OpUse:
				out = append(out, scenario.Stmt{Kind: scenario.OpUse, Name: rapid.IntRange(0, len(sc.Modules[mod].Names)-1).Draw(t, "name"),
					Attr: "local"})
			case scenario.OpCall:
				if callFrom < nf {
					out = append(out, scenario.Stmt{Kind: scenario.OpCall, Func: rapid.IntRange(callFrom, nf-1).Draw(t, "callee")})
				}
			case scenario.OpSync:
				out = append(out, scenario.Stmt{Kind: scenario.OpSync})
			case scenario.OpRaise:
				out = append(out, scenario.Stmt{Kind: scenario.OpRaise})
			case scenario.OpIf:
				// the condition loads the module's first name, the one
				// the scenario file's "if tid OP N:" stands for
				out = append(out, scenario.Stmt{Kind: scenario.OpIf,
					Cond: scenario.Cond{Op: scenario.CmpOp(rapid.IntRange(int(scenario.CmpEq), int(scenario.CmpGe)).Draw(t, "comparison")),
						Than: rapid.IntRange(0, sc.Threads).Draw(t, "than")},
					Then: body(mod, callFrom, depth+1), Else: body(mod, callFrom, depth+1)})
			case scenario.OpRepeat:
				out = append(out, scenario.Stmt{Kind: scenario.OpRepeat, Times: rapid.IntRange(1, 2).Draw(t, "times"),
					Body: body(mod, callFrom, depth+1)})
			}
		}
		return out
	}
	for i := range nf {
		m := rapid.IntRange(0, len(sc.Modules)-1).Draw(t, "module")
		sc.Functions = append(sc.Functions, scenario.Function{Name: fmt.Sprintf("f%d", i+1), Module: m, Body: body(m, i+1, 0)})
	}
	sc.Kernel = body(0, 0, 0)
	if nf > 0 && rapid.Bool().Draw(t, "host calls") {
		for l := 0; l <= sc.Launches; l++ {
			if rapid.Bool().Draw(t, "host call here") {
				sc.Host = append(sc.Host, scenario.HostStmt{Kind: scenario.HostCall, Func: rapid.IntRange(0, nf-1).Draw(t, "host callee")})
			}
			if l < sc.Launches {
				sc.Host = append(sc.Host, scenario.HostStmt{Kind: scenario.HostLaunch})
			}
		}
		if len(sc.Host) == sc.Launches {
			sc.Host = nil
		}
	}
	for _, k := range scenario.FaultKinds {
		if o.faults.Has(k.Fault) && rapid.Bool().Draw(t, "fault "+k.Name) {
			sc.Faults = sc.Faults.With(k.Fault)
		}
	}
	if sc.Faults != 0 {
		sc.MaxFaults = rapid.IntRange(1, 2).Draw(t, "max faults")
	}
	if err := sc.Validate(); err != nil {
		t.Fatalf("drew an invalid scenario: %v\n%s", err, sc)
	}
	return sc
}

// drawTarget draws a variant of vs and an atomicity mode, and compiles
// the scenario for them.
func drawTarget(t *rapid.T, vs []variants.Variant, sc *scenario.Scenario) *model.Program {
	var names []string
	for _, v := range vs {
		names = append(names, v.Protocol.Name)
	}
	p, err := check.Lookup(rapid.SampledFrom(names).Draw(t, "variant"))
	if err != nil {
		t.Fatalf("%v", err)
	}
	a, err := model.ParseAtomicity(rapid.SampledFrom(atomicityNames()).Draw(t, "atomicity"))
	if err != nil {
		t.Fatalf("%v", err)
	}
	prog, err := model.NewProgram(sc, p, a)
	if err != nil {
		t.Fatalf("the scenario does not compile: %v\n%s", err, sc)
	}
	return prog
}

// atomicityNames are the atomicity modes' names, for readable draws.
func atomicityNames() []string {
	var out []string
	for _, a := range model.Atomicities() {
		out = append(out, a.String())
	}
	return out
}

// walkDrawn runs sys to the end along a schedule whose every choice (the
// runnable thread to step, lowest first) rapid draws, and returns the
// schedule and the failure that ended it: a step's, the scheduler's
// deadlock, or the end state's (nil when none).
func walkDrawn(t *rapid.T, sys sched.System) ([]sched.ThreadID, *sched.Failure) {
	var schedule []sched.ThreadID
	for len(schedule) < sched.DefaultMaxDepth {
		var run []sched.ThreadID
		done := true
		for u := range sched.ThreadID(sys.NumThreads()) {
			switch sys.Status(u) {
			case sched.Runnable:
				run = append(run, u)
				done = false
			case sched.Blocked:
				done = false
			}
		}
		switch {
		case done:
			return schedule, sys.Final()
		case len(run) == 0:
			return schedule, &sched.Failure{Kind: check.KindDeadlock, Thread: -1, Message: "no thread can move"}
		}
		u := run[rapid.IntRange(0, len(run)-1).Draw(t, "next")]
		schedule = append(schedule, u)
		if f := sys.Step(u); f != nil {
			return schedule, f
		}
	}
	t.Fatalf("an execution longer than %d steps", sched.DefaultMaxDepth)
	return nil, nil
}

// reproduce is what a failing property prints: the explore commands that
// search the scenario, and that replay the schedule, on the variant and
// atomicity (each reads its file from a here-document).
func reproduce(prog *model.Program, scope check.Scope, schedule []sched.ThreadID) string {
	var b strings.Builder
	flags := ""
	if scope == check.ScopeAll {
		flags = " -after-failure"
	}
	fmt.Fprintf(&b, "search it:\n  go run ./cmd/explore -protocol %s -atomicity %s%s -scenario /dev/stdin <<'EOF'\n%sEOF\n",
		prog.Protocol.Name, prog.Atomicity, flags, prog.Scenario)
	rep := &check.Report{Config: check.Config{Protocol: prog.Protocol, Atomicity: prog.Atomicity, Scope: scope, Scenario: prog.Scenario},
		Program: prog, Result: sched.Result{Schedule: schedule}}
	var s strings.Builder
	if err := check.WriteSchedule(&s, rep); err == nil {
		fmt.Fprintf(&b, "replay this schedule:\n  go run ./cmd/explore -replay /dev/stdin <<'EOF'\n%sEOF\n", s.String())
	}
	return b.String()
}

// variantsExpected are the registered variants of one expectation.
func variantsExpected(e variants.Expected) []variants.Variant {
	var out []variants.Variant
	for _, v := range variants.All() {
		if v.Expected == e {
			out = append(out, v)
		}
	}
	return out
}

// TestPropertyCorrectNeverHarmful: the variants registered correct
// (global-lock and merged) are never harmful with one host and no
// faults, whatever the scenario (branching kernels, and atomics and
// shared arrays on the fixed simulator, included), atomicity and
// schedule, the history's linearizability (porcupine) included. (On the
// unfixed simulator it fails at once: shared-not-shared.)
func TestPropertyCorrectNeverHarmful(t *testing.T) {
	sequentialOnly(t)
	correct := variantsExpected(variants.Correct)
	require.NotEmpty(t, correct)
	rapid.Check(t, func(t *rapid.T) {
		requireNeverHarmful(t, drawTarget(t, correct, drawScenario(t, genOptions{maxHosts: 1, branch: true, memory: true})))
	})
}

// requireNeverHarmful walks prog along a drawn schedule, its history
// recorded for porcupine, and fails on any harmful violation.
func requireNeverHarmful(t *rapid.T, prog *model.Program) {
	sys := check.NewSystem(prog)
	sys.RecordHistory()
	schedule, f := walkDrawn(t, sys)
	if f != nil {
		t.Fatalf("%s: %s\n%s", f.Kind, f.Message, reproduce(prog, check.ScopeHarmful, schedule))
	}
}

// TestPropertyProposedNeverHarmful: the project's fix (proposed) is never
// harmful in the whole world: any number of hosts, branching and raising
// kernels, and every fault kind the model explores, whatever the
// atomicity and the schedule.
func TestPropertyProposedNeverHarmful(t *testing.T) {
	sequentialOnly(t)
	proposed, err := check.Lookup("proposed")
	require.NoError(t, err)
	var vs []variants.Variant
	for _, v := range variants.All() {
		if v.Protocol == proposed {
			vs = append(vs, v)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		requireNeverHarmful(t, drawTarget(t, vs, drawScenario(t, genWorld(t))))
	})
}

// failRecorder is a rapid.TB that keeps a property's failure to itself, for
// a property expected to fail: rapid searches and shrinks as under a
// test, and the caller looks at what it found.
type failRecorder struct {
	name   string
	failed bool
	errors []string
}

func (r *failRecorder) Helper()                         {}
func (r *failRecorder) Name() string                    { return r.name }
func (r *failRecorder) Logf(format string, args ...any) {}
func (r *failRecorder) Log(args ...any)                 {}
func (r *failRecorder) Skipf(format string, args ...any) {
	panic("recorder: skipped: " + fmt.Sprintf(format, args...))
}
func (r *failRecorder) Skip(args ...any) {
	panic(fmt.Sprint(append([]any{"recorder: skipped: "}, args...)...))
}
func (r *failRecorder) SkipNow() { panic("recorder: skipped") }
func (r *failRecorder) Errorf(format string, args ...any) {
	r.failed = true
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *failRecorder) Error(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *failRecorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *failRecorder) Fatal(args ...any)                 { r.Error(args...) }
func (r *failRecorder) FailNow()                          { r.failed = true }
func (r *failRecorder) Fail()                             { r.failed = true }
func (r *failRecorder) Failed() bool                      { return r.failed }

// setFlag sets a flag until the test ends.
func setFlag(t *testing.T, name, value string) {
	old := flag.Lookup(name).Value.String()
	require.NoError(t, flag.Set(name, value))
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// foundCase is a counterexample a property met.
type foundCase struct {
	prog     *model.Program
	schedule []sched.ThreadID
	failure  sched.Failure
}

// TestPropertyBuggyVariantsFound: for every variant registered buggy,
// rapid finds a scenario and a schedule with a harmful violation (one
// host, no faults) and shrinks it: never more threads, blocks or
// launches than the first one found (most runs end at two threads of one
// block and one launch: the log says), and its schedule, as explore
// -replay runs it, ends in the same violation. Its steps may be one or
// two more than the first one's: rapid shrinks what it drew, and a
// smaller scenario can take a longer walk to the violation (seen: 22
// steps after 21), so the log gives both and nothing asserts on them.
func TestPropertyBuggyVariantsFound(t *testing.T) {
	sequentialOnly(t)
	buggy := variantsExpected(variants.Buggy)
	require.NotEmpty(t, buggy)
	// the property is expected to fail: no fail file, and enough draws
	// to find each variant's bug
	setFlag(t, "rapid.nofailfile", "true")
	if checks := flag.Lookup("rapid.checks").Value.String(); checks == "100" {
		setFlag(t, "rapid.checks", "2000")
	}
	for _, v := range buggy {
		t.Run(v.Protocol.Name, func(t *testing.T) {
			var first, last *foundCase
			rec := &failRecorder{name: t.Name()}
			rapid.Check(rec, func(rt *rapid.T) {
				sc := drawScenario(rt, genOptions{maxHosts: 1})
				prog := drawTarget(rt, []variants.Variant{v}, sc)
				schedule, f := walkDrawn(rt, check.NewSystem(prog))
				if f != nil {
					c := &foundCase{prog: prog, schedule: schedule, failure: *f}
					if first == nil {
						first = c
					}
					last = c
					rt.Fatalf("%s: %s", f.Kind, f.Message)
				}
			})
			require.True(t, rec.failed, "rapid found no harmful violation of %s", v.Protocol.Name)
			require.NotNil(t, last)
			sc := last.prog.Scenario
			t.Logf("shrunk to:\n%s%s", sc, reproduce(last.prog, check.ScopeHarmful, last.schedule))
			f := first.prog.Scenario
			t.Logf("first found: %d threads, %d blocks, %d launches, %d functions, %d steps; shrunk: %d, %d, %d, %d, %d",
				f.Threads, f.Blocks, f.Launches, len(f.Functions), len(first.schedule), sc.Threads, sc.Blocks, sc.Launches, len(sc.Functions), len(last.schedule))
			require.GreaterOrEqual(t, sc.Threads, 2, "a race needs two threads")
			require.LessOrEqual(t, sc.Threads, f.Threads, "shrinking grew the threads")
			require.LessOrEqual(t, sc.Blocks, f.Blocks, "shrinking grew the blocks")
			require.LessOrEqual(t, sc.Launches, f.Launches, "shrinking grew the launches")
			rep, err := check.Replay(&check.Schedule{Protocol: last.prog.Protocol, Atomicity: last.prog.Atomicity, Scenario: sc, Steps: last.schedule})
			require.NoError(t, err)
			require.Equal(t, sched.Violation, rep.Result.Verdict)
			require.Equal(t, last.failure.Kind, rep.Result.Failure.Kind)
			require.Equal(t, check.Harmful, rep.Harm)
		})
	}
}

// TestPropertyInvariantsAgreeWithPorcupine: on any scenario, variant,
// atomicity and schedule, an execution the invariants pass (every class
// of violation, the end state included) has a linearizable history
// (porcupine, against the sequential specification); so a history
// porcupine refuses is always one the invariants catch.
func TestPropertyInvariantsAgreeWithPorcupine(t *testing.T) {
	sequentialOnly(t)
	rapid.Check(t, func(t *rapid.T) {
		sc := drawScenario(t, genWorld(t))
		prog := drawTarget(t, variants.All(), sc)
		schedule, f := walkDrawn(t, check.NewScopedSystem(prog, check.ScopeAll))
		if f != nil {
			return
		}
		ints := make([]int, len(schedule))
		for i, u := range schedule {
			ints[i] = int(u)
		}
		h, err := check.History(prog, ints)
		if err != nil {
			t.Fatalf("the schedule does not replay: %v", err)
		}
		if res := check.Linearizable(h); res != porcupine.Ok {
			t.Fatalf("the invariants pass an execution whose history porcupine finds %v\n%s", res, reproduce(prog, check.ScopeAll, schedule))
		}
	})
}

// TestPropertyReplayIsDeterministic: a drawn execution, written as
// schedule.txt and as trace.json and replayed as explore -replay does,
// ends the same way each time, with the same trace, as the walk did.
func TestPropertyReplayIsDeterministic(t *testing.T) {
	sequentialOnly(t)
	rapid.Check(t, func(t *rapid.T) {
		sc := drawScenario(t, genWorld(t))
		prog := drawTarget(t, variants.All(), sc)
		scope, err := check.ParseScope(rapid.SampledFrom([]string{"harmful", "all"}).Draw(t, "violations"))
		if err != nil {
			t.Fatalf("%v", err)
		}
		schedule, f := walkDrawn(t, check.NewScopedSystem(prog, scope))
		s := &check.Schedule{Protocol: prog.Protocol, Atomicity: prog.Atomicity, Scope: scope, Scenario: sc, Steps: schedule}
		first, err := check.Replay(s)
		if err != nil {
			t.Fatalf("the walk's schedule does not replay: %v\n%s", err, reproduce(prog, scope, schedule))
		}
		if (f == nil) != (first.Result.Failure == nil) || f != nil && *f != *first.Result.Failure {
			t.Fatalf("the walk ended in %v, its replay in %v\n%s", f, first.Result.Failure, reproduce(prog, scope, schedule))
		}
		want := render(t, first)
		var files []string
		var sch strings.Builder
		whole := *first // a replay without a violation holds no schedule
		whole.Result.Schedule = schedule
		if err := check.WriteSchedule(&sch, &whole); err != nil {
			t.Fatalf("schedule.txt: %v", err)
		}
		files = append(files, sch.String())
		if f != nil {
			tr, err := check.NewTrace(first, "replay")
			if err != nil {
				t.Fatalf("trace: %v", err)
			}
			var js strings.Builder
			if err := tr.WriteJSON(&js); err != nil {
				t.Fatalf("trace.json: %v", err)
			}
			files = append(files, js.String())
		}
		for _, file := range files {
			back, err := check.ReadReplay([]byte(file))
			if err != nil {
				t.Fatalf("reading back: %v\n%s", err, file)
			}
			again, err := check.Replay(back)
			if err != nil {
				t.Fatalf("replaying it: %v", err)
			}
			if got := render(t, again); got != want || !slices.Equal(again.Result.Schedule, first.Result.Schedule) {
				t.Fatalf("a replay differs:\n%s\nfrom\n%s\n%s", got, want, reproduce(prog, scope, schedule))
			}
		}
	})
}

// render is a replay's outcome as text: its trace for a violation, else
// its verdict and what it stepped past.
func render(t *rapid.T, r *check.Report) string {
	tr, err := check.NewTrace(r, "replay")
	if err != nil {
		t.Fatalf("trace: %v", err)
	}
	var b strings.Builder
	if err := tr.WriteText(&b); err != nil {
		t.Fatalf("trace: %v", err)
	}
	return b.String() + check.AfterFailureLine(r)
}
