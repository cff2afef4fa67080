package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// spin is "spin until r[reg] == v".
func spin(reg, v int) op { return op{Kind: opSpin, Reg: reg, V: v} }

// A thread that spins holding the lock another thread needs to end the
// spin: the executions where T0 takes l0 first never end.
func TestHangFindsSpinHoldingLock(t *testing.T) {
	p := toy("a0", "a0 w0+1 u0")
	p.Threads[0] = append(p.Threads[0], spin(0, 1), op{Kind: opRelease, L: 0})
	res := sched.Hang(spinSystem{newToy(p)}, sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	require.Equal(t, sched.KindHang, res.Failure.Kind)
	require.Equal(t, []sched.ThreadID{0}, res.Schedule, "the nearest state past which no execution ends: T0 holds l0")
	require.Contains(t, res.Failure.Message, "runnable now: thread 0; blocked: thread 1")
	// the safety searches see nothing wrong: no execution fails, and none
	// ends in a deadlock
	require.Equal(t, sched.Verified, sched.States{}.Run(spinSystem{newToy(p)}, sched.Limits{}).Verdict)
}

// A spin that another thread can always end is no hang, whatever the
// order.
func TestHangPassesSpinOthersEnd(t *testing.T) {
	p := toy("r0", "a0 w0+1 u0")
	p.Threads[0] = []op{spin(0, 1), {Kind: opAcquire, L: 0}, {Kind: opRelease, L: 0}}
	res := sched.Hang(spinSystem{newToy(p)}, sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict)
	require.True(t, res.Complete)
	require.Positive(t, res.Stats.States)
}

func TestHangStopsIncomplete(t *testing.T) {
	p := toy("r0", "a0 w0+1 u0")
	p.Threads[0] = []op{spin(0, 1)}
	res := sched.Hang(spinSystem{newToy(p)}, sched.Limits{Stop: func() bool { return true }})
	require.Equal(t, sched.Incomplete, res.Verdict)
	require.False(t, res.Complete)
}

// Hang agrees with an independent oracle on random spin programs: from
// every reachable state, a forward search for an end (a state where no
// thread can move, or a failing step).
func TestHangAgreesWithForwardSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.Custom(genSpinProgram).Draw(t, "program")
		build := func() sched.System { return spinSystem{newToy(p)} }
		res := sched.Hang(build(), sched.Limits{})
		require.NotEqual(t, sched.Incomplete, res.Verdict)
		hangs := anyStateCannotEnd(build())
		hangSeen[hangs]++
		require.Equal(t, hangs, res.Verdict == sched.Violation, "program %s: Hang says %s", p, res.Verdict)
		if hangs {
			s := build()
			for _, th := range res.Schedule {
				require.Nil(t, s.Step(th))
			}
			require.False(t, canEnd(s), "program %s: the schedule %v reaches a state that can end", p, res.Schedule)
		}
	})
}

// hangSeen counts TestHangAgreesWithForwardSearch's programs by whether
// they hang, which TestHangPropertyDrawsBoth checks.
var hangSeen = map[bool]int{}

// TestHangPropertyDrawsBoth: the property's programs include hanging and
// non-hanging ones (run after it, in file order).
func TestHangPropertyDrawsBoth(t *testing.T) {
	if hangSeen[true]+hangSeen[false] == 0 {
		t.Skip("TestHangAgreesWithForwardSearch did not run (-run)")
	}
	require.Positive(t, hangSeen[true], "no drawn program hangs")
	require.Positive(t, hangSeen[false], "every drawn program hangs")
	t.Logf("hanging programs: %d, others: %d", hangSeen[true], hangSeen[false])
}

func anyStateCannotEnd(init sched.System) bool {
	seen := map[string]bool{}
	queue := []sched.System{init}
	seen[string(init.AppendKey(nil))] = true
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if !canEnd(s) {
			return true
		}
		for _, c := range successors(s) {
			if k := string(c.AppendKey(nil)); !seen[k] {
				seen[k] = true
				queue = append(queue, c)
			}
		}
	}
	return false
}

// canEnd: some path from s reaches an end.
func canEnd(s sched.System) bool {
	seen := map[string]bool{string(s.AppendKey(nil)): true}
	stack := []sched.System{s}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		run, _ := runnableOf(s)
		if len(run) == 0 {
			return true
		}
		for _, t := range run {
			c := s.Clone()
			if c.Step(t) != nil {
				return true
			}
			if k := string(c.AppendKey(nil)); !seen[k] {
				seen[k] = true
				stack = append(stack, c)
			}
		}
	}
	return false
}

// successors are s's children by every runnable thread whose step does
// not fail.
func successors(s sched.System) []sched.System {
	var out []sched.System
	run, _ := runnableOf(s)
	for _, t := range run {
		c := s.Clone()
		if c.Step(t) == nil {
			out = append(out, c)
		}
	}
	return out
}
