package sched_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// fan is n independent threads that each count to steps: (steps+1)^n
// states, every one with n children, and a count of the clones made of
// any of them. Clone stands for the cost of a large state (a model of 64
// threads in 3 blocks takes tens of microseconds to copy).
type fan struct {
	counts []uint8
	steps  uint8
	// pad is how many bytes the key has after the counts (a larger state)
	pad    int
	clones *atomic.Int64
	// stepped counts the steps taken in any state
	stepped *atomic.Int64
}

func newFan(n int, steps uint8) *fan {
	return &fan{counts: make([]uint8, n), steps: steps, clones: new(atomic.Int64), stepped: new(atomic.Int64)}
}

func (f *fan) NumThreads() int { return len(f.counts) }
func (f *fan) Status(t sched.ThreadID) sched.Status {
	if f.counts[t] < f.steps {
		return sched.Runnable
	}
	return sched.Done
}
func (f *fan) Footprint(sched.ThreadID) sched.Footprint {
	return sched.Footprint{Access: sched.Local}
}
func (f *fan) Step(t sched.ThreadID) *sched.Failure {
	f.stepped.Add(1)
	f.counts[t]++
	return nil
}
func (f *fan) Final() *sched.Failure { return nil }
func (f *fan) Clone() sched.System {
	f.clones.Add(1)
	c := *f
	c.counts = slices.Clone(f.counts)
	return &c
}
func (f *fan) AppendKey(b []byte) []byte {
	return append(append(b, f.counts...), make([]byte, f.pad)...)
}

// AppendCanonicalKey implements sched.Canonical: the threads are
// interchangeable.
func (f *fan) AppendCanonicalKey(b []byte) []byte {
	n := len(b)
	b = append(b, f.counts...)
	slices.Sort(b[n:])
	return append(b, make([]byte, f.pad)...)
}

// A state's many children do not put off the search's polls of
// Limits.Stop: a search makes about one state per step between two polls,
// not one per runnable thread (64 here), so a search of large states
// still ends soon after -timeout or Ctrl-C (and does not hold a state per
// thread on every frame of its stack). Stop says yes from its first poll;
// each search, each worker of a parallel one and its prefix, runs at most
// PollEvery steps before it asks, and makes a state per step.
func TestStopIsPolledWhileChildrenAreMade(t *testing.T) {
	tests := []struct {
		s       sched.Strategy
		workers int
	}{
		{sched.DFS{}, 1}, {sched.States{}, 1}, {sched.BFS{}, 1},
		{sched.Parallel{Workers: 1}, 1},
		{sched.Parallel{Workers: 2}, 2},
		// its prefix makes over 6,000 states before it has 32 roots
		{sched.Parallel{Workers: 2, Symmetry: true}, 2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%+v", tt.s.Name(), tt.s), func(t *testing.T) {
			sys := newFan(64, 200)
			res := tt.s.Run(sys, sched.Limits{Stop: func() bool { return true }})
			require.Equal(t, sched.Incomplete, res.Verdict)
			// the workers' steps and the prefix's, PollEvery each
			require.LessOrEqual(t, sys.clones.Load(), int64((tt.workers+1)*sched.PollEvery))
		})
	}
}

// A search polls Limits.Stop sooner where states are large: a step of a
// state whose key has 1 KiB counts as 65 (see Limits.Stop), so each
// search, worker or prefix takes at most PollEvery/65 of them before it
// asks (here Stop says yes at once).
func TestStopIsPolledSoonerInLargeStates(t *testing.T) {
	tests := []struct {
		s       sched.Strategy
		workers int
	}{
		{sched.DFS{}, 1}, {sched.States{}, 1}, {sched.BFS{}, 1}, {sched.DPOR{}, 1},
		{sched.Bounded{MaxPreemptions: 2}, 1},
		{sched.Parallel{Workers: 2}, 2},
		{sched.Parallel{Workers: 2, Symmetry: true}, 2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%+v", tt.s.Name(), tt.s), func(t *testing.T) {
			sys := newFan(64, 200)
			sys.pad = 1024 - 64
			res := tt.s.Run(sys, sched.Limits{Stop: func() bool { return true }})
			require.Equal(t, sched.Incomplete, res.Verdict)
			require.LessOrEqual(t, sys.stepped.Load(), int64((tt.workers+1)*(sched.PollEvery/65+1)))
		})
	}
}
