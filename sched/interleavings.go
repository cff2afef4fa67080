package sched

// Interleavings counts the executions that a search reducing nothing would
// run from init: every schedule from init to a state where no thread can
// run, or to a step that fails, once each (the stateless enumeration that
// DPOR's tests check it against counts them so). It is what DPOR's
// executions are reduced from, which DPOR alone cannot tell.
//
// The count is not made by running them: every reachable state is
// expanded once, as by DFS, keyed by its exact key (keyOf), and the count
// of schedules from each is the sum over its threads' steps, memoized. So
// it costs about a stateful DFS (states is how many it expanded), and
// holds one number per state. The count is a float64, exact below 2^53
// and rounded above (merged with 3 threads has about 3.8e14). ok is false
// when lim cut the pass short (Stop, or an execution as long as the step
// budget); the count is then meaningless.
func Interleavings(init System, lim Limits) (count float64, states int64, ok bool) {
	c := interleavings{memo: map[string]float64{}, stop: stopper{stop: lim.Stop}, maxDepth: lim.maxDepth()}
	c.stop.weigh(init)
	count = c.from(init.Clone(), 0)
	return count, int64(len(c.memo)), !c.cut
}

// interleavings is one Interleavings pass.
type interleavings struct {
	memo     map[string]float64 // by exact key: the schedules from the state
	stop     stopper
	maxDepth int
	cut      bool
	key      []byte
}

// from is the count of schedules from s, reached in depth steps.
func (c *interleavings) from(s System, depth int) float64 {
	if c.cut {
		return 0
	}
	c.key = keyOf(s, c.key)
	key := string(c.key)
	if n, ok := c.memo[key]; ok {
		return n
	}
	threads, _ := runnable(s, nil) // not a shared buffer: the steps below recurse
	var n float64
	if len(threads) == 0 {
		n = 1
	} else if depth >= c.maxDepth {
		c.cut = true
		return 0
	}
	for _, t := range threads {
		if c.stop.stopped() {
			c.cut = true
			return 0
		}
		child := s.Clone()
		if child.Step(t) != nil {
			n++ // the execution ends at its failing step
			continue
		}
		n += c.from(child, depth+1)
	}
	if !c.cut {
		c.memo[key] = n
	}
	return n
}
