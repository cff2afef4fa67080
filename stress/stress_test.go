package stress_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/stress"
	"swapcheck/variants"
)

var atomicities = model.Atomicities()

func protocol(t *testing.T, name string) *model.Protocol {
	t.Helper()
	p, err := check.Lookup(name)
	require.NoError(t, err)
	return p
}

// unnamed are the names of the variants registered as want that no test
// case names (protocol gives a case's variant), in registry order.
func unnamed[T any](want variants.Expected, cases []T, protocol func(T) string) []string {
	var out []string
	for _, v := range variants.All() {
		named := slices.ContainsFunc(cases, func(c T) bool { return protocol(c) == v.Protocol.Name })
		if v.Expected == want && !named {
			out = append(out, v.Protocol.Name)
		}
	}
	return out
}

func shape(t *testing.T, threads int) *scenario.Scenario {
	t.Helper()
	sh := scenario.DefaultShape
	sh.Threads = threads
	sc, err := sh.BuildUpTo(scenario.MaxStressThreads)
	require.NoError(t, err)
	return sc
}

func scenarioFile(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	f, err := os.Open("../testdata/scenarios/" + name)
	require.NoError(t, err)
	defer f.Close()
	sc, err := scenario.Parse(f)
	require.NoError(t, err)
	return sc
}

// Each buggy variant fails under stress, and the recorded order of the
// failing launch's steps replays in the simulator to the same failure:
// the locks made the steps as atomic as the model says they are.
func TestFindsEachBug(t *testing.T) {
	type bugCase struct {
		name, protocol string
		scenario       *scenario.Scenario
		kinds          []string
	}
	tests := []bugCase{
		{"naive on 64 threads", "naive", shape(t, 64), []string{check.KindUseSawReal}},
		{"naive with barriers", "naive", scenarioFile(t, "syncthreads.txt"), []string{check.KindUseSawReal}},
		{"refcount-unregistered on 3 threads", "refcount-unregistered", shape(t, 3), nil},
		{"refcount-del on 3 threads", "refcount-del", shape(t, 3), nil},
		{"merged on an aborted launch", "merged", scenarioFile(t, "aborted-launch.txt"),
			[]string{check.KindUseSawNone, check.KindUseSawOtherFake, check.KindLeftSwapped}},
	}
	// Every other variant registered as buggy, on 3 threads: none is left out.
	for _, name := range unnamed(variants.Buggy, tests, func(tt bugCase) string { return tt.protocol }) {
		tests = append(tests, bugCase{name + " on 3 threads", name, shape(t, 3), nil})
	}
	for _, tt := range tests {
		for _, a := range atomicities {
			t.Run(tt.name+"/"+a.String(), func(t *testing.T) {
				res, err := stress.Run(stress.Config{Protocol: protocol(t, tt.protocol), Scenario: tt.scenario, Atomicity: a,
					Duration: 20 * time.Second, Seed: 1, Gosched: stress.DefaultGosched})
				require.NoError(t, err)
				require.Equal(t, sched.Violation, res.Verdict)
				v := res.Violation
				require.NotNil(t, v)
				if tt.kinds != nil {
					require.Contains(t, tt.kinds, v.Failure.Kind)
				}
				require.True(t, v.Reproduced, v.Note)
				require.Positive(t, v.After)
				require.LessOrEqual(t, v.After, res.Elapsed)
				require.Positive(t, v.Launch)
				require.NotEmpty(t, v.Schedule)
				require.Len(t, v.Recent, min(len(v.Schedule), stress.DefaultBefore))
				require.Equal(t, len(v.Schedule)-len(v.Recent)+1, v.FirstRecent)
				if v.Failure.Thread >= 0 {
					require.Equal(t, int(v.Failure.Thread), v.Recent[len(v.Recent)-1].Thread, "the failing step comes last")
					require.Positive(t, v.Calls)
				}
			})
		}
	}
}

// The correct variants survive stress, on up to CUDA's 1024 threads per
// block, with barriers and nested calls.
func TestCorrectVariantsHold(t *testing.T) {
	type holdCase struct {
		name, protocol string
		scenario       *scenario.Scenario
	}
	tests := []holdCase{
		{"merged on 64 threads", "merged", shape(t, 64)},
		{"merged on 1024 threads", "merged", shape(t, 1024)},
		{"global-lock on 64 threads", "global-lock", shape(t, 64)},
		{"merged with barriers", "merged", scenarioFile(t, "syncthreads.txt")},
		{"merged nested", "merged", scenarioFile(t, "nested-two-modules.txt")},
		{"global-lock with aliases", "global-lock", scenarioFile(t, "aliases.txt")},
	}
	// Every other variant registered as correct, on 64 threads.
	for _, name := range unnamed(variants.Correct, tests, func(tt holdCase) string { return tt.protocol }) {
		tests = append(tests, holdCase{name + " on 64 threads", name, shape(t, 64)})
	}
	for _, tt := range tests {
		for _, a := range atomicities {
			t.Run(tt.name+"/"+a.String(), func(t *testing.T) {
				res, err := stress.Run(stress.Config{Protocol: protocol(t, tt.protocol), Scenario: tt.scenario, Atomicity: a,
					Duration: 150 * time.Millisecond, Seed: 1, Gosched: stress.DefaultGosched})
				require.NoError(t, err)
				require.Nil(t, res.Violation)
				require.Equal(t, sched.NoViolationFound, res.Verdict)
				require.Positive(t, res.Launches)
				require.GreaterOrEqual(t, res.Calls, res.Launches*int64(tt.scenario.Threads), "every thread makes a call")
				require.Greater(t, res.Steps, res.Calls)
				require.Positive(t, res.CallsPerSec())
			})
		}
	}
}

// leaky swaps, then takes the protocol's global lock and never lets it
// go: the host's own swap of the kernel's module takes it first, so every
// GPU thread's call blocks forever while the host waits for the block.
var leaky = (&model.Protocol{
	Name: "leaky", Source: "leaky.py", Summary: "swaps, then takes a global lock and never releases it",
	Code: []model.Instr{
		model.CollectCuda(1, "orig = {k: v for k, v in fn_globs.items() if v is cuda}", "FOR_ITER; MAP_ADD"),
		{Line: 2, Text: "fn_globs.update(...)", Bytecode: "CALL (dict.update)", Object: model.Globals, Access: sched.Write,
			Exec: func(c *model.Ctx) { c.UpdateGlobals(c.Orig(), c.Fake()) }},
		{Line: 3, Text: "_lock.acquire()", Bytecode: "CALL (lock.acquire)", Object: model.GlobalLock, Access: sched.Write,
			Ready: func(c *model.Ctx) bool { return c.LockFree(model.GlobalLockRef) },
			Exec:  func(c *model.Ctx) { c.Acquire(model.GlobalLockRef) }},
		{Line: 4, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
	},
}).Compile()

// A launch in which no goroutine can move ends with a deadlock, as the
// search reports it, and no goroutine is left parked.
func TestDeadlock(t *testing.T) {
	for _, threads := range []int{1, 3} {
		for _, a := range atomicities {
			t.Run(fmt.Sprintf("%d threads/%s", threads, a), func(t *testing.T) {
				sc := shape(t, threads)
				res, err := stress.Run(stress.Config{Protocol: leaky, Scenario: sc, Atomicity: a, Duration: 10 * time.Second, Seed: 1})
				require.NoError(t, err)
				require.NotNil(t, res.Violation)
				require.Equal(t, sched.KindDeadlock, res.Violation.Failure.Kind)
				require.True(t, res.Violation.Reproduced, res.Violation.Note)
				require.EqualValues(t, 1, res.Launches)

				rep, err := check.Explore(check.Config{Protocol: leaky, Scenario: sc, Atomicity: a})
				require.NoError(t, err)
				require.Equal(t, sched.KindDeadlock, rep.Result.Failure.Kind, "the search agrees")
			})
		}
	}
}

// With KeepGoing a run counts the launches that failed and goes on to the
// budget (benchmarks measure naive's calls this way).
func TestKeepGoing(t *testing.T) {
	res, err := stress.Run(stress.Config{Protocol: protocol(t, "naive"), Scenario: shape(t, 8), Atomicity: model.GIL,
		MaxCalls: 20_000, Seed: 1, Gosched: 0.5, KeepGoing: true})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, res.Verdict)
	require.Nil(t, res.Violation, "KeepGoing keeps no schedule")
	require.Positive(t, res.Violations)
	require.Less(t, res.Violations, res.Launches)
	require.GreaterOrEqual(t, res.Calls, int64(20_000))
}

// The budget is checked between launches: a run makes at least MaxCalls
// calls and less than one launch more; Stop ends it as incomplete.
func TestBudgetAndStop(t *testing.T) {
	sc := shape(t, 16)
	base := stress.Config{Protocol: protocol(t, "merged"), Scenario: sc, Atomicity: model.FreeThreaded, Seed: 1}

	cfg := base
	cfg.MaxCalls = 1000
	res, err := stress.Run(cfg)
	require.NoError(t, err)
	require.Equal(t, sched.NoViolationFound, res.Verdict)
	require.GreaterOrEqual(t, res.Calls, int64(1000))
	require.Less(t, res.Calls, int64(1000+sc.Threads))
	require.Equal(t, res.Calls, res.Launches*int64(sc.Threads))

	cfg = base
	cfg.Duration, cfg.Stop, cfg.StopReason = time.Hour, func() bool { return true }, "interrupted"
	res, err = stress.Run(cfg)
	require.NoError(t, err)
	require.Equal(t, sched.Incomplete, res.Verdict)
	require.Equal(t, "interrupted", res.Cut)
}

func TestBadConfig(t *testing.T) {
	good := stress.Config{Protocol: protocol(t, "merged"), Scenario: shape(t, 2), Atomicity: model.GIL, Duration: time.Second}
	tests := []struct {
		name   string
		change func(*stress.Config)
		err    string
	}{
		{"no budget", func(c *stress.Config) { c.Duration = 0 }, "needs a budget"},
		{"negative duration", func(c *stress.Config) { c.Duration = -time.Second }, "-duration"},
		{"negative calls", func(c *stress.Config) { c.MaxCalls = -1 }, "-max-calls"},
		{"gosched above 1", func(c *stress.Config) { c.Gosched = 2 }, "-gosched"},
		{"too many threads", func(c *stress.Config) { c.Scenario = &scenario.Scenario{Threads: 1025, Blocks: 1, Launches: 1} }, "threads must be 1..1024"},
		{"no protocol", func(c *stress.Config) { c.Protocol = nil }, "no protocol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.change(&cfg)
			_, err := stress.Run(cfg)
			require.ErrorContains(t, err, tt.err)
		})
	}
}

// The report names the failing thread and step and lists the steps before
// it, the failing one marked; the JSON summary says the same.
func TestReport(t *testing.T) {
	res, err := stress.Run(stress.Config{Protocol: protocol(t, "naive"), Scenario: shape(t, 4), Atomicity: model.GIL,
		Duration: 20 * time.Second, Seed: 1, Gosched: 0.5})
	require.NoError(t, err)
	v := res.Violation
	require.NotNil(t, v)
	var b strings.Builder
	require.NoError(t, stress.WriteReport(&b, res, "REPRO"))
	out := b.String()
	who := res.Program.ThreadName(int(v.Failure.Thread))
	require.Contains(t, out, "verdict: violation use-saw-real")
	require.Contains(t, out, "by thread "+who)
	require.Contains(t, out, "to the same failure")
	require.Contains(t, out, "reproduce: REPRO")
	lines := strings.Split(strings.TrimSpace(out[strings.Index(out, "the last "):strings.Index(out, "reproduce:")]), "\n")
	require.Len(t, lines, 1+len(v.Recent))
	last := lines[len(lines)-1]
	require.True(t, strings.HasPrefix(last, ">"), last)
	require.Contains(t, last, who)
	require.Contains(t, last, "is numba.cuda")

	s := stress.Summarize(res)
	require.Equal(t, "violation", s.Verdict)
	require.Equal(t, who, s.Violation.Thread)
	require.Equal(t, len(v.Schedule), s.Violation.Step)
	require.True(t, s.Violation.Reproduced)
	require.Equal(t, v.Calls, s.Violation.CallsBefore)
	require.True(t, slices.Equal(toInts(v.Schedule), s.Violation.Schedule))
}

func toInts(s []sched.ThreadID) []int {
	out := make([]int, len(s))
	for i, t := range s {
		out[i] = int(t)
	}
	return out
}

// Run leaves no goroutine behind, whether the launch ended, failed, or
// deadlocked (TestMain checks the whole package too).
func TestNoLeaks(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    *model.Protocol
	}{{"violation", protocol(t, "naive")}, {"deadlock", leaky}, {"clean", protocol(t, "merged")}} {
		for _, a := range atomicities {
			t.Run(tt.name+"/"+a.String(), func(t *testing.T) {
				defer goleak.VerifyNone(t)
				_, err := stress.Run(stress.Config{Protocol: tt.p, Scenario: shape(t, 64), Atomicity: a,
					Duration: 50 * time.Millisecond, Seed: 1, Gosched: 0.5})
				require.NoError(t, err)
			})
		}
	}
}
