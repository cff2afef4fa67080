package source_test

import (
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
		src, err := pysource.Load(interpreter(t, pyvm.V312), file)
		require.NoError(t, err)
		p, err := source.LoadWith(src, sc, model.GIL, source.Options{ThreadContext: true})
		require.NoError(t, err)
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
