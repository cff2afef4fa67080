package pyvm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/pyvm"
)

// TestReachFollowsTheCodeStillToRun: a thread suspended in merged's swap
// (its __enter__ done) reaches the registries its exit names and the
// lock it holds in a local, not the registration lock its code will not
// name again; the swap function, not called yet, reaches that one too.
func TestReachFollowsTheCodeStillToRun(t *testing.T) {
	for _, v := range []pyvm.Version{pyvm.V311, pyvm.V312} {
		p, s, g, swap, fn, fake := swapWorld(t, v, "../testdata/python/merged.py")
		global := func(name string) pyvm.Value {
			x, ok := s.Global(name)
			require.True(t, ok, name)
			return x
		}
		reg, locks, count := global("_locks_register_lock"), global("_globals_locks"), global("_swap_refcount")
		before := s.Reach(nil, -1, swap)
		require.True(t, before[reg.X], "%s: the function, not called, names the registration lock", v)
		require.True(t, before[locks.X], "%s", v)

		s.Begin(0, swap, fn, fake)
		cm, exc := runAlone(t, p, s)
		require.Zero(t, exc.K)
		require.NoError(t, s.Enter(0, cm))
		_, exc = runAlone(t, p, s)
		require.Zero(t, exc.K)
		after := s.Reach(nil, 0, cm)
		require.True(t, after[count.X], "%s: the exit's registry", v)
		require.True(t, after[g.X], "%s: the module's globals, in a local", v)
		require.False(t, after[reg.X], "%s: the registration lock, which the code still to run does not name", v)
		require.False(t, after[locks.X], "%s", v)
		lock, ok := s.DictGet(locks, pyvm.Value{K: pyvm.KindID, X: g.X})
		require.True(t, ok, "%s: the module's lock", v)
		require.True(t, after[lock.X], "%s: the lock held in a local", v)
	}
}

// TestThreadKeysTellThreadsApart: two threads at one instruction of the
// same call hold alike objects (equal keys); one step of one of them
// makes them differ.
func TestThreadKeysTellThreadsApart(t *testing.T) {
	p, s, _, swap, fn, fake := swapWorldThreads(t, pyvm.V312, "../testdata/python/merged.py", 2)
	s.Begin(0, swap, fn, fake)
	s.Begin(1, swap, fn, fake)
	require.Equal(t, s.AppendThreadKey(nil, 0), s.AppendThreadKey(nil, 1))
	var info pyvm.StepInfo
	p.Step(s, 0, &info)
	require.NotEqual(t, s.AppendThreadKey(nil, 0), s.AppendThreadKey(nil, 1))
	p.Step(s, 1, &info)
	require.Equal(t, s.AppendThreadKey(nil, 0), s.AppendThreadKey(nil, 1))
}
