package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Chooser makes every scheduling choice of a walk: given the runnable
// threads (in increasing order, never empty) it returns the one to run.
type Chooser interface {
	Choose(runnable []ThreadID) ThreadID
}

// Seeded chooses uniformly with a PCG generator seeded by the caller.
type Seeded struct{ rng *rand.Rand }

// NewSeeded returns a Chooser whose choices depend only on seed.
func NewSeeded(seed uint64) *Seeded {
	return &Seeded{rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// Choose implements Chooser.
func (s *Seeded) Choose(runnable []ThreadID) ThreadID {
	return runnable[s.rng.IntN(len(runnable))]
}

// Rand draws the random numbers of a strategy whose choices are not
// between threads (PCT's priorities and change points).
type Rand interface {
	// IntN returns a uniform integer in [0, n); n > 0.
	IntN(n int) int
}

// IntN implements Rand, from the same generator as Choose.
func (s *Seeded) IntN(n int) int { return s.rng.IntN(n) }

// Replaying hands back a recorded schedule. When the schedule runs out, or
// names a thread that is not runnable, Err is set and Choose returns the
// first runnable thread; the walk checks Err and stops.
type Replaying struct {
	schedule []ThreadID
	next     int
	Err      error
}

// NewReplaying returns a Chooser that repeats schedule.
func NewReplaying(schedule []ThreadID) *Replaying { return &Replaying{schedule: schedule} }

// Choose implements Chooser.
func (r *Replaying) Choose(runnable []ThreadID) ThreadID {
	if r.Err != nil {
		return runnable[0]
	}
	if r.next >= len(r.schedule) {
		r.Err = fmt.Errorf("the schedule ends after %d steps while threads %v can still move", len(r.schedule), runnable)
		return runnable[0]
	}
	t := r.schedule[r.next]
	if !slices.Contains(runnable, t) {
		r.Err = fmt.Errorf("step %d: thread %d is not runnable (runnable: %v)", r.next+1, t, runnable)
		return runnable[0]
	}
	r.next++
	return t
}

// Left is how many recorded steps have not been used.
func (r *Replaying) Left() int { return len(r.schedule) - r.next }
