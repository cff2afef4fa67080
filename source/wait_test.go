package source_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// TestMergedFixWaitsFromSource: merged_fix.py's entry waits in a while
// loop (threading.Condition(lock).wait(0.001)) while the module holds
// another launch's fake; with two hosts under kernel.py patched
// (-thread-context) a host does wait, and the file is verified, with no
// hang (sched.Hang: every reachable state can still end). Broken on
// purpose: without the wait (spinning with the lock held) the search's
// safety properties still hold but Hang finds the state past which no
// execution ends; without the timeout, the waiter waits for good, a
// deadlock.
func TestMergedFixWaitsFromSource(t *testing.T) {
	sc, err := scenario.Shape{Threads: 2, Blocks: 1, Hosts: 2, Calls: 1, Modules: 1, Names: 1}.Build()
	require.NoError(t, err)
	load := func(file string) *source.Program {
		p := loadThreadContext(t, sc, file)
		require.True(t, p.MayLoop(), "%s has a while loop", file)
		return p
	}

	good := load(filepath.Join("..", "testdata", "python", "merged_fix.py"))
	res := sched.States{}.Run(source.New(good), sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict, "%v", res.Failure)
	hang := sched.Hang(source.New(good), sched.Limits{})
	require.Equal(t, sched.Verified, hang.Verdict, "%v", hang.Failure)
	spin := load(filepath.Join("testdata", "mergedfix_spin.py"))
	require.Equal(t, sched.Verified, sched.States{}.Run(source.New(spin), sched.Limits{}).Verdict,
		"spinning with the lock held breaks no safety property")
	hang = sched.Hang(source.New(spin), sched.Limits{})
	require.Equal(t, sched.Violation, hang.Verdict)
	require.Equal(t, sched.KindHang, hang.Failure.Kind)
	t.Logf("spin: %s after %d steps", hang.Failure.Message, len(hang.Schedule))

	nowake := load(filepath.Join("testdata", "mergedfix_nowake.py"))
	res = sched.States{}.Run(source.New(nowake), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	require.Equal(t, sched.KindDeadlock, res.Failure.Kind)

	// the good file waits on that schedule too, and goes on: the files
	// differ only in the wait's argument
	steps, f := source.Run(good, res.Schedule)
	require.Nil(t, f)
	waits := 0
	for _, st := range steps {
		for _, u := range st.Units {
			if strings.Contains(u.Where+u.Text+u.Bytecode, "threading.Condition.wait") {
				waits++
			}
		}
	}
	require.Positive(t, waits, "merged_fix.py does not wait on the schedule where the broken file waits for good")
}

// TestConditionNotifyFromSource: merged_fix.py changed to wait on a
// per-module Condition (defaultdict(threading.Condition): each makes its
// own RLock) with no timeout, which the last thread out notifies
// (notify_all), on two hosts of two launches each (a launch's kernel
// reads cuda, so a launch that runs beside another's fake is seen): a
// waiter does wait, is woken, and the file is verified, with no hang.
// Without the notify it is a deadlock; with `if` for `while` (a woken
// waiter does not test again) the second launch of the other host can
// swap its fake in between the notify and the waiter's return, and the
// waiter's launch uses that fake: use-saw-other-fake. The test makes both
// broken copies from the file (broken).
func TestConditionNotifyFromSource(t *testing.T) {
	sc, err := scenario.Parse(strings.NewReader("threads 1\nhosts 2\nlaunches 2\nmodule kernels cuda\nmodule dev1 cuda\ndevice f in dev1: use cuda.local\nkernel: use cuda.threadIdx; call f\n"))
	require.NoError(t, err)
	load := func(file string) *source.Program { return loadThreadContext(t, sc, file) }
	good := load(filepath.Join("testdata", "mergedfix_notify.py"))
	res := sched.States{}.Run(source.New(good), sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict, "%v", res.Failure)
	hang := sched.Hang(source.New(good), sched.Limits{})
	require.Equal(t, sched.Verified, hang.Verdict, "%v", hang.Failure)

	res = sched.States{}.Run(source.New(load(broken(t, "mergedfix_notify.py", "cond.notify_all()", "pass"))), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	require.Equal(t, sched.KindDeadlock, res.Failure.Kind)
	// the good file's waiters are woken: random walks (seeded) to the end
	// until one shows a wait that a notify_all ended
	rng := rand.New(rand.NewPCG(1, 2))
	woken := false
	for walk := 0; walk < 300 && !woken; walk++ {
		w := source.New(good)
		var schedule []sched.ThreadID
		for {
			next := sched.RunnableThreads(w)
			if len(next) == 0 {
				break
			}
			th := next[rng.IntN(len(next))]
			require.Nil(t, w.Step(th))
			schedule = append(schedule, th)
		}
		require.Nil(t, w.Final())
		steps, f := source.Run(good, schedule)
		require.Nil(t, f)
		for _, st := range steps {
			for _, u := range st.Units {
				woken = woken || strings.Contains(u.Where+u.Text+u.Bytecode, "notified: True")
			}
		}
	}
	require.True(t, woken, "no random walk shows a waiter woken by notify_all")

	res = sched.States{}.Run(source.New(load(broken(t, "mergedfix_notify.py", "while _swap_refcount[gid] and any(", "if _swap_refcount[gid] and any("))), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	require.Equal(t, "use-saw-other-fake", res.Failure.Kind)
}

// loadThreadContext loads file's swapped_cuda_module, compiled by CPython
// 3.12, into scenario sc under gil, kernel.py patched (-thread-context).
func loadThreadContext(t *testing.T, sc *scenario.Scenario, file string) *source.Program {
	t.Helper()
	src, err := pysource.Load(interpreter(t, pyvm.V312), file)
	require.NoError(t, err)
	p, err := source.LoadWith(src, sc, model.GIL, source.Options{ThreadContext: true})
	require.NoError(t, err)
	return p
}

// broken is a copy of testdata/name, in a temporary directory, with its
// one occurrence of old replaced by new: a fix broken on purpose that
// follows the file it breaks.
func broken(t *testing.T, name, old, new string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(text), old), "%s: %q", name, old)
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(name, ".py")+"_broken.py")
	require.NoError(t, os.WriteFile(out, []byte(strings.Replace(string(text), old, new, 1)), 0o644))
	return out
}
