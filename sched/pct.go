package sched

import (
	"math"
	"slices"
)

// PCT is probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, "A randomized scheduler with probabilistic guarantees of
// finding bugs", ASPLOS 2010). Each of Runs runs gives the n threads
// distinct random priorities Depth, ..., Depth+n-1, picks Depth-1 distinct
// change points among steps 1..k (k: Length, or EstimateLength; all k of
// them when k < Depth-1), and
// always runs the runnable thread of highest priority; when step number
// k_i comes, the thread about to run it drops to priority i (below every
// initial priority), and the highest runnable thread runs it instead.
//
// A bug of depth d (one that shows when d ordering constraints between
// steps hold) is found by a run with probability at least PCTBound(n, k, d)
// when Depth >= d, whatever the program; uniform random walks give no such
// guarantee. Finding nothing proves nothing: the verdict is then
// NoViolationFound.
//
// All randomness comes from Chooser: through IntN when it is a Rand (as
// *Seeded is), else by asking it to choose among 0..n-1 as if those were
// threads (a Replaying chooser replays them).
type PCT struct {
	Depth   int
	Runs    int
	Chooser Chooser
	// Length is k, the steps an execution is expected to take (0: take
	// EstimateLength).
	Length int
}

// Name implements Strategy.
func (PCT) Name() string { return "pct" }

// Exhaustive implements Strategy.
func (PCT) Exhaustive() bool { return false }

// PCTBound is the probability with which one PCT run of depth d finds a
// bug of depth d in a program of n threads and k steps: 1/(n k^(d-1)).
func PCTBound(n, k, d int) float64 {
	return 1 / (float64(n) * math.Pow(float64(k), float64(d-1)))
}

// EstimateLength is the number of steps of one execution that always runs
// the lowest-numbered runnable thread (at least 1, at most the default
// step budget).
func (PCT) EstimateLength(init System) int {
	w := walk(init.Clone(), lowest{}, DefaultMaxDepth, &stopper{}, nil)
	return max(len(w.schedule), 1)
}

// lowest chooses the lowest-numbered runnable thread.
type lowest struct{}

func (lowest) Choose(runnable []ThreadID) ThreadID { return runnable[0] }

// Run implements Strategy.
func (p PCT) Run(init System, lim Limits) Result {
	k := p.Length
	if k <= 0 {
		k = p.EstimateLength(init)
	}
	c := &pctChooser{rand: randOf(p.Chooser), prio: make([]int, init.NumThreads())}
	return runWalks(init, lim, int64(p.Runs), func() Chooser {
		c.start(max(p.Depth, 1), k)
		return c
	})
}

// pctChooser schedules one PCT run.
type pctChooser struct {
	rand   Rand
	prio   []int // each thread's priority
	change []int // change[i-1] is k_i, the step where priority i is given
	step   int   // steps chosen so far
}

// start draws a run's priorities and change points.
func (c *pctChooser) start(d, k int) {
	n := len(c.prio)
	for i := range c.prio {
		c.prio[i] = d + i
	}
	for i := n - 1; i > 0; i-- { // Fisher-Yates
		j := c.rand.IntN(i + 1)
		c.prio[i], c.prio[j] = c.prio[j], c.prio[i]
	}
	c.change = c.change[:0]
	for len(c.change) < min(d-1, k) {
		s := 1 + c.rand.IntN(k)
		if !slices.Contains(c.change, s) {
			c.change = append(c.change, s)
		}
	}
	c.step = 0
}

// Choose implements Chooser.
func (c *pctChooser) Choose(runnable []ThreadID) ThreadID {
	c.step++
	t := c.highest(runnable)
	for i, s := range c.change {
		if s == c.step {
			c.prio[t] = i + 1
			t = c.highest(runnable)
		}
	}
	return t
}

func (c *pctChooser) highest(runnable []ThreadID) ThreadID {
	best := runnable[0]
	for _, t := range runnable[1:] {
		if c.prio[t] > c.prio[best] {
			best = t
		}
	}
	return best
}

// randOf is c's Rand, or, when c has none, draws made by choosing among
// 0..n-1.
func randOf(c Chooser) Rand {
	if r, ok := c.(Rand); ok {
		return r
	}
	return &chooserRand{c: c}
}

type chooserRand struct {
	c   Chooser
	buf []ThreadID
}

func (r *chooserRand) IntN(n int) int {
	r.buf = r.buf[:0]
	for i := range n {
		r.buf = append(r.buf, ThreadID(i))
	}
	return int(r.c.Choose(r.buf))
}
