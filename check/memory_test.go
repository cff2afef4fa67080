package check_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// memScenario is a kernel of threads threads in which thread tid makes
// ops[tid % len(ops)] (its arguments as the scenario file writes them
// after the array) on a[0], with the given fixes.
func memScenario(t *testing.T, threads int, fixes string, ops ...string) *scenario.Scenario {
	t.Helper()
	var body string
	for i, op := range ops {
		stmt := "atomic." + strings.Replace(op, " ", " a ", 1)
		if i == len(ops)-1 {
			body += stmt + strings.Repeat("; end", len(ops)-1)
			break
		}
		body += fmt.Sprintf("if tid %% %d == %d: %s; else: ", len(ops), i, stmt)
	}
	text := fmt.Sprintf("threads %d\narray a 1\nmodule kernels cuda\nkernel: %s\n", threads, body)
	if fixes != "" {
		text += "fix " + fixes + "\n"
	}
	sc, err := scenario.Parse(strings.NewReader(text))
	require.NoError(t, err, text)
	return sc
}

// explore runs the default search on sc under protocol merged.
func exploreMem(t *testing.T, sc *scenario.Scenario, a model.Atomicity) *check.Report {
	t.Helper()
	merged, err := check.Lookup("merged")
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: merged, Scenario: sc, Atomicity: a})
	require.NoError(t, err)
	return rep
}

// TestLostUpdateOnAddAndSub: cuda.atomic.add in one thread and
// cuda.atomic.sub in another hold different locks (addlock, sublock), so
// the simulator loses one update; found with both threads of a 2-thread
// kernel, in every atomicity mode, and the counterexample's trace ends in
// the final value nobody's order explains.
func TestLostUpdateOnAddAndSub(t *testing.T) {
	sc := memScenario(t, 2, "", "add 0 1", "sub 0 1")
	for _, a := range model.Atomicities() {
		t.Run(a.String(), func(t *testing.T) {
			rep := exploreMem(t, sc, a)
			require.Equal(t, sched.Violation, rep.Result.Verdict)
			require.Equal(t, check.KindLostUpdate, rep.Result.Failure.Kind)
			require.Contains(t, rep.Result.Failure.Message, "T0 atomic.add(a, 0, 1) returned")
			require.Contains(t, rep.Result.Failure.Message, "T1 atomic.sub(a, 0, 1) returned")
		})
	}
}

// pairArgs are an operation's arguments after the array in the pair
// tests: values that make each one store something in some order.
var pairArgs = map[string]string{
	"inc": "0 3", "dec": "0 3", "compare_and_swap": "0 5", "cas": "0 0 5",
}

func opArgs(op string) string {
	if a, ok := pairArgs[op]; ok {
		return op + " " + a
	}
	return op + " 0 3"
}

// TestAtomicPairs: for every pair of FakeCUDAAtomic's operations, two
// threads making one each on one element. Operations that hold the same
// lock (each with itself; max with nanmax, min with nanmin) are verified:
// the invariant is no "any two atomics fail". Under the one-lock fix
// every pair is verified. And add with sub, the case, fails.
func TestAtomicPairs(t *testing.T) {
	var ops []string
	for o := scenario.AtomicAdd; o <= scenario.AtomicCas; o++ {
		ops = append(ops, o.String())
	}
	failed := map[string]bool{}
	for _, x := range ops {
		for _, y := range ops {
			px, _ := scenario.ParseAtomicOp(x)
			py, _ := scenario.ParseAtomicOp(y)
			sameLock := px.Info().Lock == py.Info().Lock
			rep := exploreMem(t, memScenario(t, 2, "", opArgs(x), opArgs(y)), model.GIL)
			require.NotEqual(t, sched.Incomplete, rep.Result.Verdict)
			if sameLock {
				require.Equal(t, sched.Verified, rep.Result.Verdict, "%s with %s hold one lock: %+v", x, y, rep.Result.Failure)
			} else if rep.Result.Verdict == sched.Violation {
				require.Equal(t, check.KindLostUpdate, rep.Result.Failure.Kind)
				failed[x+"/"+y] = true
			}
			fixed := exploreMem(t, memScenario(t, 2, "atomics-one-lock", opArgs(x), opArgs(y)), model.GIL)
			require.Equal(t, sched.Verified, fixed.Result.Verdict, "%s with %s under one lock: %+v", x, y, fixed.Result.Failure)
		}
	}
	require.True(t, failed["add/sub"] && failed["sub/add"], "add with sub must lose an update")
	require.True(t, failed["add/exch"], "exch's store can overwrite add's")
	t.Logf("%d ordered pairs of different locks lose an update", len(failed))
}

// TestMemoryFixesVerified: the fixed atomics (add, sub, exch, inc by
// turns) and the fixed shared allocation are verified at 4 threads in
// every atomicity mode, and the unfixed ones are not.
func TestMemoryFixesVerified(t *testing.T) {
	shared := func(fix string) *scenario.Scenario {
		text := "threads 4\nmodule kernels cuda\nkernel: shared.array s 4; use cuda.threadIdx\n"
		if fix != "" {
			text += "fix " + fix + "\n"
		}
		sc, err := scenario.Parse(strings.NewReader(text))
		require.NoError(t, err)
		return sc
	}
	ops := []string{"add 0 1", "sub 0 1", "exch 0 2", "inc 0 3"}
	for _, a := range model.Atomicities() {
		t.Run(a.String(), func(t *testing.T) {
			rep := exploreMem(t, memScenario(t, 4, "atomics-one-lock", ops...), a)
			require.True(t, rep.Verified(), "%+v", rep.Result.Failure)
			rep = exploreMem(t, memScenario(t, 4, "", ops...), a)
			require.Equal(t, check.KindLostUpdate, rep.Result.Failure.Kind)

			rep = exploreMem(t, shared("shared-setdefault"), a)
			require.True(t, rep.Verified(), "%+v", rep.Result.Failure)
			rep = exploreMem(t, shared(""), a)
			require.Equal(t, check.KindSharedNotShared, rep.Result.Failure.Kind)

			// each thread stores its slot, waits, loads every slot: with
			// the fix no load misses a store (stale-read checked on every
			// path), unfixed the split comes first
			rep = exploreMem(t, barrierScenario(t, 4, "shared-setdefault"), a)
			require.True(t, rep.Verified(), "%+v", rep.Result.Failure)
			rep = exploreMem(t, barrierScenario(t, 4, ""), a)
			require.Equal(t, check.KindSharedNotShared, rep.Result.Failure.Kind)
		})
	}
}

// barrierScenario: each of threads threads allocates s, stores to its
// own slot, waits at the barrier and loads every slot.
func barrierScenario(t *testing.T, threads int, fix string) *scenario.Scenario {
	t.Helper()
	body := "shared.array s " + fmt.Sprint(threads) + "; "
	for i := range threads - 1 {
		body += fmt.Sprintf("if tid == %d: store s %d %d; else: ", i, i, i+1)
	}
	body += fmt.Sprintf("store s %d %d", threads-1, threads) + strings.Repeat("; end", threads-1) + "; syncthreads"
	for i := range threads {
		body += fmt.Sprintf("; load s %d", i)
	}
	text := fmt.Sprintf("threads %d\nmodule kernels cuda\nkernel: %s\n", threads, body)
	if fix != "" {
		text += "fix " + fix + "\n"
	}
	sc, err := scenario.Parse(strings.NewReader(text))
	require.NoError(t, err, text)
	return sc
}

// TestStaleRead: stale-read is what a split shared array does to a
// kernel that communicates through it, so a search, which stops at the
// split, never reports it first; on random full schedules (the checked
// system stepped on past each failure) it shows up, always after a
// split, and only where a load after the barrier reads another array
// than the one its slot's store went into.
func TestStaleRead(t *testing.T) {
	merged, err := check.Lookup("merged")
	require.NoError(t, err)
	p, err := model.NewProgram(barrierScenario(t, 2, ""), merged, model.GIL)
	require.NoError(t, err)
	stale := 0
	for seed := range uint64(200) {
		s := check.NewSystem(p)
		rng := rand.New(rand.NewPCG(seed, 0))
		var kinds []string
		var staleMsg string
		for {
			runnable := sched.RunnableThreads(s)
			if len(runnable) == 0 {
				break
			}
			if f := s.Step(runnable[rng.IntN(len(runnable))]); f != nil {
				kinds = append(kinds, f.Kind)
				if f.Kind == check.KindStaleRead {
					staleMsg = f.Message
				}
			}
		}
		if staleMsg != "" {
			stale++
			require.Equal(t, check.KindSharedNotShared, kinds[0], "seed %d: %v", seed, kinds)
			require.Regexp(t, `^T[01]: x = s\[[01]\] after cuda.syncthreads\(\) reads its array #[12], but the slot's last store before the barrier, by another thread of its block, went into array #[12]$`, staleMsg)
		}
	}
	require.Greater(t, stale, 0, "no random schedule of 200 read a stale slot")
	t.Logf("%d of 200 random schedules read a stale slot", stale)
}

// TestAtomicsExplained: the lost-update check reads what each atomic
// returned, not only the final value, and keeps each thread's order.
func TestAtomicsExplained(t *testing.T) {
	add := func(old int) model.AtomicCall {
		return model.AtomicCall{Op: scenario.AtomicAdd, Value: 1, Old: old}
	}
	sub := func(old int) model.AtomicCall {
		return model.AtomicCall{Op: scenario.AtomicSub, Value: 1, Old: old}
	}
	final := func(v int) func(a, i int) int { return func(int, int) int { return v } }
	for _, c := range []struct {
		name    string
		threads [][]model.AtomicCall
		final   int
		ok      bool
	}{
		{"add then sub", [][]model.AtomicCall{{add(0)}, {sub(1)}}, 0, true},
		{"sub then add", [][]model.AtomicCall{{add(-1)}, {sub(0)}}, 0, true},
		{"the lost sub", [][]model.AtomicCall{{add(0)}, {sub(0)}}, 1, false},
		{"both returned 0, final 0", [][]model.AtomicCall{{add(0)}, {sub(0)}}, 0, false},
		{"a returned value no order gives", [][]model.AtomicCall{{add(5)}, {sub(6)}}, 0, false},
		{"one thread's order kept", [][]model.AtomicCall{{add(0), sub(1)}}, 0, true},
		{"one thread's order broken", [][]model.AtomicCall{{sub(1), add(0)}}, 0, false},
	} {
		require.Equal(t, c.ok, check.AtomicsExplainedForTest(c.threads, final(c.final)), c.name)
	}
}

// TestGroupedAgreesWithPorcupine: the grouped search, which decides the
// lost-update check above porcupine's size, gives porcupine's verdict on
// every history both can check: random threads of atomics and stores on
// two elements, returned and final values drawn near the truth so that
// both verdicts come up.
func TestGroupedAgreesWithPorcupine(t *testing.T) {
	verdicts := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) {
		var threads [][]model.AtomicCall
		for range rapid.IntRange(1, 4).Draw(t, "threads") {
			var calls []model.AtomicCall
			for range rapid.IntRange(0, 3).Draw(t, "calls") {
				c := model.AtomicCall{
					Op:    scenario.AtomicOp(rapid.IntRange(int(scenario.AtomicAdd), int(scenario.AtomicCas)).Draw(t, "op")),
					Index: rapid.IntRange(0, 1).Draw(t, "index"),
					Value: rapid.IntRange(0, 3).Draw(t, "value"),
					Cmp:   rapid.IntRange(0, 2).Draw(t, "cmp"),
					Old:   rapid.IntRange(-1, 3).Draw(t, "old"),
					Store: rapid.IntRange(0, 4).Draw(t, "store") == 0,
				}
				if c.Store {
					c.Op, c.Cmp, c.Old = 0, 0, 0
				}
				calls = append(calls, c)
			}
			threads = append(threads, calls)
		}
		finals := []int{rapid.IntRange(-1, 4).Draw(t, "final 0"), rapid.IntRange(-1, 4).Draw(t, "final 1")}
		final := func(a, i int) int { return finals[i] }
		want := check.PorcupineExplainedForTest(threads, final)
		require.Equal(t, want, check.GroupedExplainedForTest(threads, final), "%+v, finals %v", threads, finals)
		verdicts[want]++
	})
	require.Positive(t, verdicts[true], "no history drawn was explained")
	require.Positive(t, verdicts[false], "every history drawn was explained")
}
