package sched_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

func TestPCTBound(t *testing.T) {
	tests := []struct {
		n, k, d int
		want    float64
	}{
		{n: 1, k: 10, d: 1, want: 1},
		{n: 2, k: 10, d: 1, want: 0.5},
		{n: 2, k: 3, d: 2, want: 1.0 / 6},
		{n: 4, k: 100, d: 3, want: 1.0 / 40000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d k=%d d=%d", tt.n, tt.k, tt.d), func(t *testing.T) {
			require.InDelta(t, tt.want, sched.PCTBound(tt.n, tt.k, tt.d), 1e-12)
		})
	}
}

func TestPCTEstimateLength(t *testing.T) {
	tests := []struct {
		name string
		p    *program
		want int
	}{
		{name: "every step of every thread", p: wide, want: wideSteps},
		{name: "up to the failure", p: toy("u0 r0 r0", "r0"), want: 1},
		// T0 ends holding l0; T1 then blocks on it.
		{name: "up to the deadlock", p: toy("a0 a1 u1", "r0 a1 a0"), want: 5},
		{name: "no steps", p: toy("", ""), want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, sched.PCT{}.EstimateLength(newToy(tt.p)))
		})
	}
}

// A seed fixes the result; a violation replays; nothing found is never a
// proof.
func TestPCTDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.Custom(genProgram).Draw(t, "program")
		seed := rapid.Uint64().Draw(t, "seed")
		depth := rapid.IntRange(1, 3).Draw(t, "depth")
		pct := func() sched.Result {
			return sched.PCT{Depth: depth, Runs: 20, Chooser: sched.NewSeeded(seed)}.Run(newToy(p), sched.Limits{})
		}
		first := pct()
		require.Equal(t, first, pct(), "two runs with seed %d", seed)
		_, ref := reference(newToy(p), false)
		if first.Verdict == sched.Violation {
			require.Contains(t, ref.kinds, first.Failure.Kind)
			requireReplays(t, p, "pct", first)
		} else {
			require.Equal(t, sched.NoViolationFound, first.Verdict)
			require.True(t, first.Complete)
			require.Equal(t, int64(20), first.Stats.Executions)
		}
	})
}

// bugDepth2 fails only when T1's check runs after T0's first write and
// before its last: two ordering constraints, a bug of depth 2.
var bugDepth2 = toy("w0+1 r1 r1 r1 r1 r1 r1 r1 r1 w0+2", "f0=1")

func TestPCTFindsDepth2Bug(t *testing.T) {
	k := sched.PCT{}.EstimateLength(newToy(bugDepth2))
	require.Equal(t, 11, k)

	t.Run("depth 1 never interleaves", func(t *testing.T) {
		res := sched.PCT{Depth: 1, Runs: 200, Chooser: sched.NewSeeded(1)}.Run(newToy(bugDepth2), sched.Limits{})
		require.Equal(t, sched.NoViolationFound, res.Verdict)
	})

	t.Run("depth 2 finds it", func(t *testing.T) {
		for seed := range uint64(10) {
			res := sched.PCT{Depth: 2, Runs: 30, Chooser: sched.NewSeeded(seed)}.Run(newToy(bugDepth2), sched.Limits{})
			require.Equal(t, sched.Violation, res.Verdict, "seed %d", seed)
			require.Equal(t, kindAssert, res.Failure.Kind)
			requireReplays(t, bugDepth2, "pct", res)
			t.Logf("seed %d: found in run %d", seed, res.Stats.Executions)
		}
	})

	// Each run finds it with probability at least the bound, 1/(n k):
	// here 1/22, in fact (1/2)(9/11) (T0 first, a change point among
	// steps 2-10).
	t.Run("at least the bound", func(t *testing.T) {
		const runs = 1000
		found := 0
		for seed := range uint64(runs) {
			res := sched.PCT{Depth: 2, Runs: 1, Chooser: sched.NewSeeded(seed)}.Run(newToy(bugDepth2), sched.Limits{})
			if res.Verdict == sched.Violation {
				found++
			}
		}
		rate := float64(found) / runs
		t.Logf("found in %d of %d runs (%.3f; bound %.3f)", found, runs, rate, sched.PCTBound(2, k, 2))
		require.Greater(t, rate, sched.PCTBound(2, k, 2))
		require.InDelta(t, 9.0/22, rate, 0.06)
	})
}

// A Replaying chooser drives PCT's draws: the same choices, the same run.
func TestPCTReplayingChooser(t *testing.T) {
	// Two threads: the first draw picks the thread that swaps priorities
	// with T1, which starts on top (0: T0 goes on top), the second the
	// change point among steps 1..11 (less one).
	tests := []struct {
		name    string
		draws   []sched.ThreadID
		verdict sched.Verdict
	}{
		{name: "T0 first, change at step 2", draws: []sched.ThreadID{0, 1}, verdict: sched.Violation},
		{name: "T1 first", draws: []sched.ThreadID{1, 1}, verdict: sched.NoViolationFound},
		{name: "T0 first, change after its end", draws: []sched.ThreadID{0, 10}, verdict: sched.NoViolationFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := sched.PCT{Depth: 2, Runs: 1, Chooser: sched.NewReplaying(tt.draws)}.Run(newToy(bugDepth2), sched.Limits{})
			require.Equal(t, tt.verdict, res.Verdict)
		})
	}
}

// PCT finds the depth-2 bug in a few runs: T0 must take the top priority
// and drop it after its first write.
func ExamplePCT() {
	res := sched.PCT{Depth: 2, Runs: 100, Chooser: sched.NewSeeded(3)}.Run(newToy(bugDepth2), sched.Limits{})
	fmt.Println(res.Verdict, "in run", res.Stats.Executions, "of at most 100; per run at least", sched.PCTBound(2, 11, 2))
	// Output: violation in run 7 of at most 100; per run at least 0.045454545454545456
}
