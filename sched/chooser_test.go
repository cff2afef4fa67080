package sched_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// choices asks c n times, offering a varying set of runnable threads.
func choices(c sched.Chooser, n int) []sched.ThreadID {
	sets := [][]sched.ThreadID{{0, 1, 2}, {1, 2}, {0, 2, 3, 5}, {4}}
	out := make([]sched.ThreadID, n)
	for i := range out {
		out[i] = c.Choose(sets[i%len(sets)])
	}
	return out
}

func TestSeeded(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 42, 1 << 63, ^uint64(0)} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			got := choices(sched.NewSeeded(seed), 400)
			require.Equal(t, got, choices(sched.NewSeeded(seed), 400), "same seed, different choices")
			seen := map[sched.ThreadID]int{}
			for i, c := range got {
				if i%4 == 0 {
					require.Contains(t, []sched.ThreadID{0, 1, 2}, c, "choice %d", i)
					seen[c]++
				}
			}
			require.Len(t, seen, 3, "100 choices among 0, 1, 2 never chose one of them: %v", seen)
		})
	}
	require.NotEqual(t, choices(sched.NewSeeded(1), 100), choices(sched.NewSeeded(2), 100))
}

func TestReplaying(t *testing.T) {
	all := []sched.ThreadID{0, 1, 2}
	t.Run("returns the schedule", func(t *testing.T) {
		r := sched.NewReplaying([]sched.ThreadID{2, 0, 1, 1})
		require.Equal(t, 4, r.Left())
		require.Equal(t, []sched.ThreadID{2, 0, 1, 1}, choices4(r, all))
		require.NoError(t, r.Err)
		require.Equal(t, 0, r.Left())
	})
	t.Run("thread not runnable", func(t *testing.T) {
		r := sched.NewReplaying([]sched.ThreadID{0, 1, 2})
		require.Equal(t, sched.ThreadID(0), r.Choose(all))
		require.Equal(t, sched.ThreadID(0), r.Choose([]sched.ThreadID{0, 2}), "the first runnable thread")
		require.ErrorContains(t, r.Err, "step 2: thread 1 is not runnable")
		require.Equal(t, 2, r.Left(), "the bad step is not used up")
		err := r.Err
		require.Equal(t, sched.ThreadID(1), r.Choose([]sched.ThreadID{1, 2}))
		require.Equal(t, err, r.Err, "the first error stays")
	})
	t.Run("schedule runs out", func(t *testing.T) {
		r := sched.NewReplaying([]sched.ThreadID{1})
		require.Equal(t, sched.ThreadID(1), r.Choose(all))
		require.NoError(t, r.Err)
		require.Equal(t, sched.ThreadID(0), r.Choose(all))
		require.ErrorContains(t, r.Err, "the schedule ends after 1 steps")
	})
	t.Run("empty schedule", func(t *testing.T) {
		r := sched.NewReplaying(nil)
		require.Equal(t, sched.ThreadID(2), r.Choose([]sched.ThreadID{2}))
		require.Error(t, r.Err)
	})
}

func choices4(c sched.Chooser, runnable []sched.ThreadID) []sched.ThreadID {
	out := make([]sched.ThreadID, 4)
	for i := range out {
		out[i] = c.Choose(runnable)
	}
	return out
}

func TestReplay(t *testing.T) {
	p := toy("r0 w0+1", "f0=1")
	tests := []struct {
		name     string
		schedule []sched.ThreadID
		verdict  sched.Verdict
		kind     string
		err      string
	}{
		{name: "passes", schedule: []sched.ThreadID{1, 0, 0}, verdict: sched.NoViolationFound},
		{name: "fails", schedule: []sched.ThreadID{0, 0, 1}, verdict: sched.Violation, kind: kindAssert},
		{name: "thread not runnable", schedule: []sched.ThreadID{1, 1}, err: "step 2: thread 1 is not runnable"},
		{name: "no such thread", schedule: []sched.ThreadID{7}, err: "step 1: thread 7 is not runnable"},
		{name: "ends early", schedule: []sched.ThreadID{0}, err: "the schedule ends after 1 steps"},
		{name: "goes on after the end", schedule: []sched.ThreadID{1, 0, 0, 0}, err: "the execution ended after step 3 but the schedule has 1 more"},
		{name: "goes on after a failure", schedule: []sched.ThreadID{0, 0, 1, 1}, err: "the execution ended after step 3 but the schedule has 1 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			init := newToy(p)
			before := init.AppendKey(nil)
			res, err := sched.Replay(init, tt.schedule, sched.Limits{})
			require.Equal(t, before, init.AppendKey(nil), "Replay modified its initial state")
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.verdict, res.Verdict)
			require.Equal(t, tt.verdict == sched.NoViolationFound, res.Complete)
			if tt.kind != "" {
				require.Equal(t, tt.kind, res.Failure.Kind)
				require.Equal(t, tt.schedule, res.Schedule)
			}
		})
	}
}

// A recorded schedule is replayed step by step; the chooser says when it
// does not fit.
func ExampleNewReplaying() {
	r := sched.NewReplaying([]sched.ThreadID{1, 0})
	fmt.Println(r.Choose([]sched.ThreadID{0, 1}), r.Choose([]sched.ThreadID{0, 1}), r.Err)
	r.Choose([]sched.ThreadID{0, 1})
	fmt.Println(r.Err)
	// Output:
	// 1 0 <nil>
	// the schedule ends after 2 steps while threads [0 1] can still move
}
