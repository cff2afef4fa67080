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
	"swapcheck/variants"
)

// TestAbortedLaunchReachesLaunch2 shows the brief's aborted-launch failure
// of merged in full. On testdata/scenarios/aborted-launch.txt the shortest
// violation of all is a lingering thread of launch 1 seeing the None it
// swapped in itself, after its launch failed (-after-failure, ScopeAll);
// the shortest harmful one, which a search reports by default, is launch 2
// reading launch 1's fake: a lingering thread is inside f, so launch 2's
// entry sees a positive count and never swaps to its own fake.
func TestAbortedLaunchReachesLaunch2(t *testing.T) {
	f, err := os.Open("../testdata/scenarios/aborted-launch.txt")
	require.NoError(t, err)
	defer f.Close()
	sc, err := scenario.Parse(f)
	require.NoError(t, err)
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	for _, a := range model.Atomicities() {
		t.Run(a.String(), func(t *testing.T) {
			prog, err := model.NewProgram(sc, p, a)
			require.NoError(t, err)
			res := sched.BFS{}.Run(check.NewSystem(prog), sched.Limits{})
			require.Equal(t, sched.Violation, res.Verdict)
			require.Equal(t, check.KindUseSawOtherFake, res.Failure.Kind, res.Failure.Message)
			require.Regexp(t, `^L2\.B0\.T\d: dev1\.cuda is fake#1, the fake of another launch, not fake#2$`, res.Failure.Message)
			require.Equal(t, check.Harmful, check.FailureHarm(prog, res.Schedule, res.Failure))

			all := sched.BFS{}.Run(check.NewScopedSystem(prog, check.ScopeAll), sched.Limits{})
			require.Equal(t, sched.Violation, all.Verdict)
			require.Regexp(t, `^L1\.B0\.T\d: dev1\.cuda is None, not fake#1`, all.Failure.Message)
			require.Equal(t, check.AfterFailure, check.FailureHarm(prog, all.Schedule, all.Failure))
			require.Less(t, len(all.Schedule), len(res.Schedule), "the after-failure violation comes first")
		})
	}
}

// TestExceptionsPassedOnAreNotTheMachinerys: the kernel's own exception
// unwinds through the host's swap, and the RuntimeError that syncthreads()
// raises in a thread of an aborted block unwinds through a device call's
// swap; each with-exit re-raises it, which is not an exception of the swap
// machinery. (Until 9f0c62f the model marked every re-raise as the
// machinery's, so every protocol failed here with kind exception.) The
// device function uses no cuda, so only a protocol's own race can fail: a
// variant registered as correct must be verified; one registered as buggy
// may fail of another kind (a variant that restores the module outside a
// finally leaves it swapped here).
func TestExceptionsPassedOnAreNotTheMachinerys(t *testing.T) {
	sc, err := scenario.Parse(strings.NewReader(`threads 2
module kernels cuda
module dev1 cuda
device f in dev1: syncthreads
kernel: call f; raise
`))
	require.NoError(t, err)
	for _, v := range variants.All() {
		p := v.Protocol
		for _, a := range model.Atomicities() {
			t.Run(p.Name+"/"+a.String(), func(t *testing.T) {
				rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: a, Strategy: check.StrategyDFS})
				require.NoError(t, err)
				f := rep.Result.Failure
				if p.Name == "refcount-unregistered" && a == model.FreeThreadedOverwrite {
					// The protocol's own race, on free-threaded builds
					// before gh-142495's fix: both threads miss in the
					// defaultdict(threading.Lock), hold different locks,
					// and both pop the saved names. With the fix (mode
					// free-threaded) the second miss gets the first's
					// lock, and the search verifies.
					require.NotNil(t, f)
					require.Equal(t, "T1: KeyError raised by the swap machinery at refcount_unregistered.py:43: fn_globs.update(_swap_orig.pop(gid))", f.Message)
					return
				}
				if f != nil && (f.Kind == check.KindException || v.Expected == variants.Correct) {
					require.Failf(t, "a violation where none is due", "%s: %s", f.Kind, f.Message)
				}
				if v.Expected == variants.Correct {
					require.True(t, rep.Verified(), "verdict %s", rep.Result.Verdict)
				}
			})
		}
	}
}

// TestRaiseSkipsTheLaterBlocks: a block that raises ends its launch
// (kernel.py's loop over the blocks is left): the later blocks' threads
// never start, and no search may take them for a deadlock. (Found by
// TestPropertyReplayIsDeterministic: a model that left them waiting
// reported every raising kernel of two blocks deadlocked.)
func TestRaiseSkipsTheLaterBlocks(t *testing.T) {
	sc := parseScenario(t, "threads 1\nblocks 2\nmodule kernels cuda\nkernel: raise\n")
	for _, s := range harmSearches {
		t.Run(s.name, func(t *testing.T) {
			rep, err := check.Explore(check.Config{Protocol: protocol(t, "merged"), Scenario: sc, Atomicity: model.GIL, Strategy: s.strategy, Workers: s.workers, Preemptions: 1})
			require.NoError(t, err)
			require.True(t, rep.Verified(), "%s: %v", rep.Result.Verdict, rep.Result.Failure)
		})
	}
}
