package worldtest_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/swap"
)

// The step memo is exact: on seeded walks over every scenario, protocol and
// atomicity, a world that keeps its compact numbers (so that GPU steps are
// recalled from the memo once met) goes through exactly the vectors and
// events of a world that runs every step, and most GPU steps are recalled;
// PeekWord, before such a step, tells its word and event, and TakePeeked
// makes the state after it.
//
// By default every scenario and protocol runs in one atomicity mode,
// rotating along the scenarios (testenv.Rotate); SWAPCHECK_LONG=1 runs
// each scenario and protocol in one mode too, rotating along both
// (testenv.Pairwise: every scenario and every protocol meets every mode),
// for CI's budget.
func TestStepMemoIsExact(t *testing.T) {
	sequentialOnly(t)
	recalled, gpuSteps, stale, peeks := 0, 0, 0, 0
	scs := keyScenarios(t)
	for i, name := range slices.Sorted(maps.Keys(scs)) {
		sc := scs[name]
		for pi, p := range protocols {
			for _, ai := range testenv.Pairwise(i, pi, len(atomicities)) {
				a := atomicities[ai]
				prog := program(t, sc, p, a)
				for seed := range uint64(10) {
					memo, plain, taken := model.New(prog), model.New(prog), model.New(prog)
					c := sched.NewSeeded(seed)
					for {
						memo.AppendCompactKey(nil) // as a search does: the numbers are known
						// the runnable threads first: after a recalled step
						// the world is stale, and they come from the status memo
						if memo.StaleForTest() {
							stale++
						}
						gotR, gotDone := memo.AppendRunnable(nil)
						r, done := plain.AppendRunnable(nil)
						require.Equal(t, r, gotR, "%s/%s/%s seed %d", name, p.Name, a, seed)
						require.Equal(t, done, gotDone, "%s/%s/%s seed %d", name, p.Name, a, seed)
						require.Equal(t, key(plain), key(memo), "%s/%s/%s seed %d", name, p.Name, a, seed)
						require.Equal(t, runnable(plain), runnable(memo), "%s/%s/%s seed %d", name, p.Name, a, seed)
						// a search may peek at a thread that cannot run
						// (sched's early peek); the memo never holds
						// its step, so the peek tells nothing. (In
						// gil-breaker a thread held off while another
						// keeps the GIL may have a step in the memo:
						// the search ignores a peek at a thread that
						// cannot run.)
						for u := range prog.NumThreads() {
							if !slices.Contains(r, sched.ThreadID(u)) && !heldOff(memo, u) {
								_, _, _, ok := memo.PeekWord(u)
								require.False(t, ok, "%s/%s/%s seed %d: a peek at thread %d, which cannot run", name, p.Name, a, seed, u)
							}
						}
						if len(r) == 0 {
							break
						}
						th := int(c.Choose(r))
						recalls := th != model.Host && memo.RecallsForTest(th)
						if th != model.Host {
							gpuSteps++
							if recalls {
								recalled++
							}
						}
						peekWord, note, peekEv, peeked := memo.PeekWord(th)
						if peeked {
							taken.TakePeeked(memo, th, note)
						}
						want := *plain.Step(th)
						got := *memo.Step(th)
						require.Equal(t, want, got, "%s/%s/%s seed %d: thread %d's event", name, p.Name, a, seed, th)
						// PeekWord told the step's word and event, wherever
						// the memo recalled it and the word fits.
						word, fits := memo.CompactWord()
						require.Equal(t, recalls && fits, peeked, "%s/%s/%s seed %d: thread %d peeked", name, p.Name, a, seed, th)
						if peeked {
							peeks++
							require.Equal(t, word, peekWord, "%s/%s/%s seed %d: thread %d's peeked word", name, p.Name, a, seed, th)
							require.Equal(t, got, *peekEv, "%s/%s/%s seed %d: thread %d's peeked event", name, p.Name, a, seed, th)
							// the state TakePeeked made is the stepped one:
							// its numbers, vector and runnable threads
							takenWord, _ := taken.CompactWord()
							require.Equal(t, word, takenWord, "%s/%s/%s seed %d: thread %d's taken word", name, p.Name, a, seed, th)
							takenR, takenDone := taken.AppendRunnable(nil)
							gotR, gotDone := plain.AppendRunnable(nil)
							require.Equal(t, gotR, takenR, "%s/%s/%s seed %d: thread %d's taken runnable threads", name, p.Name, a, seed, th)
							require.Equal(t, gotDone, takenDone, "%s/%s/%s seed %d: thread %d's taken runnable threads", name, p.Name, a, seed, th)
							require.Equal(t, key(plain), key(taken), "%s/%s/%s seed %d: thread %d's taken state", name, p.Name, a, seed, th)
						}
					}
				}
			}
		}
	}
	t.Logf("%d of %d GPU steps recalled from the memo (%d peeked at); %d runnable sets asked of stale worlds", recalled, gpuSteps, peeks, stale)
	require.Greater(t, recalled, gpuSteps/4)
	require.Greater(t, peeks, recalled/4)
	require.Greater(t, stale, recalled/2)
}

// With VerifyMemoForTest every step the memo could recall is run and
// checked against it instead, on the searches' own path (a world copied
// from its parent, numbers and all), and so is every status.
func TestStepMemoVerified(t *testing.T) {
	defer model.VerifyMemoForTest()()
	for name, sc := range keyScenarios(t) {
		for _, p := range protocols {
			prog := program(t, sc, p, model.GIL)
			for seed := range uint64(4) {
				w := model.New(prog)
				walk(w, sched.NewSeeded(seed), func(w *model.World) {
					w.AppendCompactKey(nil)
					c := model.New(prog)
					for _, th := range runnable(w) {
						require.NotPanics(t, func() {
							c.CopyFrom(w)
							c.Step(int(th))
							c.AppendCompactKey(nil)
							c.AppendRunnable(nil) // statuses checked against the vector's
						}, "%s/%s seed %d", name, p.Name, seed)
					}
				})
			}
		}
	}
}

// The memo stays small next to the search it serves: an exhaustive search
// of merged with 4 threads takes 300,404 steps from a few thousand GPU
// steps met (the README quotes the figure this logs).
func TestStepMemoIsSmall(t *testing.T) {
	prog := program(t, build(t, scenario.Shape{Threads: 4, Blocks: 1, Calls: 1, Modules: 1, Names: 1}), swap.Merged, model.GIL)
	res := sched.DFS{}.Run(check.NewSystem(prog), sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict)
	n := prog.StepsMemoizedForTest()
	t.Logf("merged, 4 threads: %d steps, %d states, %d GPU steps in the memo", res.Stats.Steps, res.Stats.States, n)
	require.Positive(t, n)
	require.Less(t, 50*n, int(res.Stats.Steps))
}

// Stale worlds change nothing a search reports: over every scenario,
// protocol and atomicity, an exhaustive search whose worlds go stale gives
// the result of one that keeps every vector current, counts, schedule and
// failure included. (The largest searches are cut at the same count of
// executions.)
//
// By default every scenario and protocol runs in one atomicity mode,
// rotating along the scenarios (testenv.Rotate); SWAPCHECK_LONG=1 runs
// each scenario and protocol in one mode too, rotating along both
// (testenv.Pairwise: every scenario and every protocol meets every mode),
// for CI's budget.
func TestStaleWorldsSearchAlike(t *testing.T) {
	lim := sched.Limits{MaxExecutions: 20000}
	scs := keyScenarios(t)
	for i, name := range slices.Sorted(maps.Keys(scs)) {
		sc := scs[name]
		for pi, p := range protocols {
			for _, ai := range testenv.Pairwise(i, pi, len(atomicities)) {
				a := atomicities[ai]
				stale := sched.DFS{}.Run(check.NewSystem(program(t, sc, p, a)), lim)
				restore := model.KeepVectorsForTest()
				kept := sched.DFS{}.Run(check.NewSystem(program(t, sc, p, a)), lim)
				restore()
				stale.Stats.MemoryBytes, kept.Stats.MemoryBytes = 0, 0
				require.Equal(t, kept, stale, "%s/%s/%s", name, p.Name, a)
			}
		}
	}
}

// PeekAgain, from a state and PeekWord's note of a thread's step, tells
// what PeekWord tells of that thread's next step from the child
// TakePeeked makes: the same word, note and event, on seeded walks over
// every scenario, protocol and atomicity.
func TestPeekAgainIsThePeekOfTheTakenChild(t *testing.T) {
	agains, peeks := 0, 0
	for name, sc := range keyScenarios(t) {
		for _, p := range protocols {
			for _, a := range atomicities {
				prog := program(t, sc, p, a)
				for seed := range uint64(6) {
					w, child := model.New(prog), model.New(prog)
					c := sched.NewSeeded(seed)
					for {
						w.AppendCompactKey(nil) // as a search does: the numbers are known
						r, _ := w.AppendRunnable(nil)
						if len(r) == 0 {
							break
						}
						for _, u := range r {
							_, note, _, ok := w.PeekWord(int(u))
							if !ok {
								continue
							}
							peeks++
							child.TakePeeked(w, int(u), note)
							wantWord, wantNote, wantEv, wantOK := child.PeekWord(int(u))
							word, again, ev, ok := w.PeekAgain(int(u), note)
							if !ok {
								continue
							}
							agains++
							where := fmt.Sprintf("%s/%s/%s seed %d: thread %d", name, p.Name, a, seed, u)
							require.True(t, wantOK, "%s: PeekAgain told a step the child's PeekWord does not", where)
							require.Equal(t, wantWord, word, where)
							require.Equal(t, wantNote, again, where)
							require.Same(t, wantEv, ev, where)
						}
						w.Step(int(c.Choose(r)))
					}
				}
			}
		}
	}
	t.Logf("%d of %d peeked steps peeked at again", agains, peeks)
	require.Greater(t, agains, peeks/4)
}

// heldOff reports whether thread u of w can take its step but waits for
// another thread that keeps the GIL (model.GILBreaker).
func heldOff(w *model.World, u int) bool {
	return w.Program().Atomicity.BreakerOnly() && w.ReadyForTest(u)
}
