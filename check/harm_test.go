package check_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// onlyAfterFailure is a launch whose only violations are after failure:
// after the host aborts it, the thread that did not raise calls f with
// the kernel context already reset, swaps dev1 to None and reads it; it
// restores dev1 on the way out, and no one else is hurt.
const onlyAfterFailure = `threads 2
module kernels cuda
module dev1 cuda
device f in dev1: use cuda.local
kernel: call f; raise
`

func parseScenario(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(strings.NewReader(text))
	require.NoError(t, err)
	return sc
}

func scenarioFile(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("../testdata/scenarios/" + name)
	require.NoError(t, err)
	return parseScenario(t, string(data))
}

// harmSearches are the searches the harm tests run: every strategy that
// proves, on one worker and on two where it runs in parallel, and bounded
// with a bound the aborted launch's harm needs (one preemption).
var harmSearches = []struct {
	name     string
	strategy string
	workers  int
	bound    int
}{
	{"auto", check.StrategyAuto, 1, 0},
	{"auto, 2 workers", check.StrategyAuto, 2, 0},
	{"states", check.StrategyStates, 1, 0},
	{"states, 2 workers", check.StrategyStates, 2, 0},
	{"dfs", check.StrategyDFS, 1, 0},
	{"dfs, 2 workers", check.StrategyDFS, 2, 0},
	{"bfs", check.StrategyBFS, 1, 0},
	{"por", check.StrategyPOR, 1, 0},
	{"dpor", check.StrategyDPOR, 1, 0},
	{"bounded", check.StrategyBounded, 1, 1},
}

// TestReductionsFindHarmBehindAfterFailure: on the aborted launch, where
// both classes exist and an after-failure violation comes first (see
// TestAbortedLaunchReachesLaunch2), every strategy, reduced or not, steps
// past the after-failure violations and reports a harmful one: launch 2
// reading launch 1's fake, its blockDim and threadIdx. With ScopeAll they
// report a violation too, of either class, named right.
func TestReductionsFindHarmBehindAfterFailure(t *testing.T) {
	sc := scenarioFile(t, "aborted-launch.txt")
	for _, s := range harmSearches {
		t.Run(s.name, func(t *testing.T) {
			cfg := check.Config{Protocol: protocol(t, "merged"), Scenario: sc, Atomicity: model.GIL, Strategy: s.strategy, Workers: s.workers, Preemptions: s.bound}
			rep, err := check.Explore(cfg)
			require.NoError(t, err)
			require.Equal(t, sched.Violation, rep.Result.Verdict)
			require.Equal(t, check.Harmful, rep.Harm, rep.Result.Failure.Message)
			require.Regexp(t, `^L2\.B0\.T\d: dev1\.cuda is fake#1, the fake of another launch, not fake#2$`, rep.Result.Failure.Message)
			require.Positive(t, rep.AfterFailures, "the search met after-failure violations on the way")
			require.Equal(t, check.Harmful, check.FailureHarm(rep.Program, rep.Result.Schedule, rep.Result.Failure))

			cfg.Scope = check.ScopeAll
			all, err := check.Explore(cfg)
			require.NoError(t, err)
			require.Equal(t, sched.Violation, all.Result.Verdict)
			require.Equal(t, check.FailureHarm(all.Program, all.Result.Schedule, all.Result.Failure), all.Harm)
			require.Zero(t, all.AfterFailures, "ScopeAll steps past nothing")
		})
	}
}

// TestOnlyAfterFailureIsVerified: where every violation is after failure,
// each proving strategy verifies (no harmful violation), counts what it
// stepped past and names its kind; -after-failure (ScopeAll) reports it,
// and replaying that counterexample by default steps past it to the end.
func TestOnlyAfterFailureIsVerified(t *testing.T) {
	sc := parseScenario(t, onlyAfterFailure)
	for _, s := range harmSearches {
		t.Run(s.name, func(t *testing.T) {
			cfg := check.Config{Protocol: protocol(t, "merged"), Scenario: sc, Atomicity: model.GIL, Strategy: s.strategy, Workers: s.workers, Preemptions: 8}
			rep, err := check.Explore(cfg)
			require.NoError(t, err)
			require.True(t, rep.Verified(), "verdict %s", rep.Result.Verdict)
			require.Positive(t, rep.AfterFailures)
			require.Equal(t, []string{check.KindUseSawNone}, rep.AfterFailureKinds)
			sum := check.Summarize(rep)
			require.Equal(t, "harmful", sum.Violations)
			require.Equal(t, rep.AfterFailures, sum.AfterFailureSteps)
			require.Contains(t, check.AfterFailureLine(rep), "-after-failure shows one")

			cfg.Scope = check.ScopeAll
			all, err := check.Explore(cfg)
			require.NoError(t, err)
			require.Equal(t, sched.Violation, all.Result.Verdict)
			require.Equal(t, check.AfterFailure, all.Harm)
			require.Equal(t, check.KindUseSawNone, all.Result.Failure.Kind)
			require.Equal(t, "after-failure", check.Summarize(all).Violation.Harm)

			again, err := check.Replay(&check.Schedule{Protocol: cfg.Protocol, Atomicity: cfg.Atomicity, Scope: check.ScopeHarmful, Scenario: sc, Steps: all.Result.Schedule})
			require.Error(t, err, "the execution goes on past the after-failure step, so the schedule ends before it does")
			require.Nil(t, again)
		})
	}
}

// TestTraceNamesTheClass: the text trace's head says whether the
// violation is harmful or after failure, trace.json and summary.json
// carry the class and the scope, and schedule.txt the scope, which a
// replay of each file restores.
func TestTraceNamesTheClass(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scenario string
		scope    check.Scope
		head     string
		harm     string
	}{
		{"harmful", "aborted-launch.txt", check.ScopeHarmful, "verdict: violation use-saw-other-fake (harmful)\n", "harmful"},
		{"after failure", "aborted-launch.txt", check.ScopeAll, "verdict: violation use-saw-none (after failure: only a thread of a launch that had already failed saw it)\n", "after-failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := check.Explore(check.Config{Protocol: protocol(t, "merged"), Scenario: scenarioFile(t, tc.scenario), Atomicity: model.GIL, Strategy: check.StrategyBFS, Scope: tc.scope})
			require.NoError(t, err)
			tr, err := check.NewTrace(rep, "replay")
			require.NoError(t, err)
			var text, js, sched strings.Builder
			require.NoError(t, tr.WriteText(&text))
			require.Contains(t, text.String(), tc.head)
			require.NoError(t, tr.WriteJSON(&js))
			require.Contains(t, js.String(), `"violations": "`+tc.scope.String()+`"`)
			require.Contains(t, js.String(), `"harm": "`+tc.harm+`"`)
			require.Equal(t, tc.harm, check.Summarize(rep).Violation.Harm)
			require.NoError(t, check.WriteSchedule(&sched, rep))
			require.Contains(t, sched.String(), "\nviolations "+tc.scope.String()+"\n")
			for _, file := range []string{js.String(), sched.String()} {
				s, err := check.ReadReplay([]byte(file))
				require.NoError(t, err)
				require.Equal(t, tc.scope, s.Scope)
				again, err := check.Replay(s)
				require.NoError(t, err)
				require.Equal(t, *rep.Result.Failure, *again.Result.Failure)
				require.Equal(t, rep.Harm, again.Harm)
			}
		})
	}
}

// TestFormat1FilesReplayWithEveryViolation: a schedule.txt of format 1,
// written when every violation ended a search, replays with ScopeAll, so
// an after-failure counterexample it holds still ends where it did.
func TestFormat1FilesReplayWithEveryViolation(t *testing.T) {
	rep, err := check.Explore(check.Config{Protocol: protocol(t, "merged"), Scenario: scenarioFile(t, "aborted-launch.txt"), Atomicity: model.GIL, Strategy: check.StrategyBFS, Scope: check.ScopeAll})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, check.WriteSchedule(&b, rep))
	old := strings.Replace(b.String(), "\nviolations all\n", "\n", 1)
	old = strings.Replace(old, "format 2 ", "format 1 ", 1)
	s, err := check.ReadSchedule(strings.NewReader(old))
	require.NoError(t, err)
	require.Equal(t, check.ScopeAll, s.Scope)
	again, err := check.Replay(s)
	require.NoError(t, err)
	require.Equal(t, check.AfterFailure, again.Harm)
}

// TestAfterFailureStepsAreMarked: a harmful counterexample that passed
// after-failure violations on its way marks each such step in the trace
// (trace.json's after_failure, the text's "after failure: harmless"
// line), and they do not end the replay.
func TestAfterFailureStepsAreMarked(t *testing.T) {
	sc := scenarioFile(t, "aborted-launch.txt")
	prog, err := model.NewProgram(sc, protocol(t, "merged"), model.GIL)
	require.NoError(t, err)
	// the first counterexample a depth-first search meets, unshortened,
	// has lingering threads fail on the way
	defer check.NoShortenForTest()()
	rep, err := check.Explore(check.Config{Protocol: prog.Protocol, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS})
	require.NoError(t, err)
	require.Equal(t, check.Harmful, rep.Harm)
	tr, err := check.NewTrace(rep, "replay")
	require.NoError(t, err)
	marked := 0
	for _, s := range tr.Steps[:len(tr.Steps)-1] {
		if s.AfterFailure != "" {
			marked++
			require.Contains(t, check.Kinds, s.AfterFailure)
		}
	}
	require.Positive(t, marked, "no step of the trace is marked after failure")
	var text strings.Builder
	require.NoError(t, tr.WriteText(&text))
	require.Equal(t, marked, strings.Count(text.String(), " after failure: harmless"))
}

// TestShrinkKeepsTheClass: shrinking keeps a counterexample's class as
// well as its kind. The aborted launch's harm needs its second launch, so
// the default search's shrunk counterexample keeps both launches; with
// -after-failure the shortest counterexample, the lingering thread's own
// None, which one launch shows, shrinks to one launch and stays after
// failure.
func TestShrinkKeepsTheClass(t *testing.T) {
	for _, tc := range []struct {
		scope    check.Scope
		harm     check.Harm
		launches int
	}{
		{check.ScopeHarmful, check.Harmful, 2},
		{check.ScopeAll, check.AfterFailure, 1},
	} {
		t.Run(tc.scope.String(), func(t *testing.T) {
			rep, err := check.Explore(check.Config{Protocol: protocol(t, "merged"), Scenario: scenarioFile(t, "aborted-launch.txt"), Atomicity: model.GIL, Strategy: check.StrategyBFS, Scope: tc.scope, Shrink: true})
			require.NoError(t, err)
			require.NotNil(t, rep.Shrink)
			require.Equal(t, tc.harm, rep.Harm)
			require.Equal(t, tc.launches, rep.Config.Scenario.Launches, rep.Shrink.String())
		})
	}
}

// TestLingeringReadsDoNotBreakTheHistory: a lingering thread that reads
// its module after the host restored it (naive: the kernel's own module,
// which its call swapped to nothing) makes the history non-linearizable,
// but only through its own read: after failure, like the read itself.
// (Found by TestPropertyReplayIsDeterministic.)
func TestLingeringReadsDoNotBreakTheHistory(t *testing.T) {
	sc := parseScenario(t, "threads 2\nmodule kernels cuda\ndevice f1 in kernels: use cuda.local\ndevice f2 in kernels:\ndevice f3 in kernels:\nkernel: call f1; raise\n")
	steps := []sched.ThreadID{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 1, 1}
	s := &check.Schedule{Protocol: protocol(t, "naive"), Atomicity: model.GIL, Scope: check.ScopeHarmful, Scenario: sc, Steps: steps}
	rep, err := check.Replay(s)
	require.NoError(t, err)
	require.Equal(t, sched.NoViolationFound, rep.Result.Verdict, "%v", rep.Result.Failure)
	require.Equal(t, []string{check.KindUseSawReal, check.KindNotLinearizable}, rep.AfterFailureKinds)

	s.Scope = check.ScopeAll
	all, err := check.Replay(s)
	require.Error(t, err, "with every violation, the lingering read ends the execution before the schedule does")
	require.Nil(t, all)
}

// TestMergeKeepsTheScope: shard parts merge only when they looked for the
// same violations, and the merged summary adds up what they stepped past.
func TestMergeKeepsTheScope(t *testing.T) {
	a, b := mergePart, mergePart
	a.Shard, a.Violations, a.AfterFailureSteps, a.AfterFailureKinds = "0/2", "harmful", 2, []string{check.KindNotLinearizable}
	b.Violations, b.AfterFailureSteps, b.AfterFailureKinds = "harmful", 3, []string{check.KindUseSawNone, check.KindNotLinearizable}
	m, err := check.MergeSummaries([]check.Summary{a, b})
	require.NoError(t, err)
	require.Equal(t, "verified", m.Verdict)
	require.Equal(t, "harmful", m.Violations)
	require.Equal(t, int64(5), m.AfterFailureSteps)
	require.Equal(t, []string{check.KindUseSawNone, check.KindNotLinearizable}, m.AfterFailureKinds)

	b.Violations = "all"
	_, err = check.MergeSummaries([]check.Summary{a, b})
	require.EqualError(t, err, "shard 1/2 looked for all violations, but shard 0/2 for harmful: run every part with the same -after-failure")
}
