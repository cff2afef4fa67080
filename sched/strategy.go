package sched

// Strategy explores a System. Strategies are values; each Run starts from
// the given initial state, which it does not modify.
type Strategy interface {
	// Name is the strategy's name as the command line spells it.
	Name() string
	// Exhaustive reports whether a finished Run covers every reachable
	// state, so that finding nothing means Verified.
	Exhaustive() bool
	Run(init System, lim Limits) Result
}

// stopper polls Limits.Stop, and reports Limits.Progress, every PollEvery
// calls, or, once weighed, every PollEvery steps' worth of work.
type stopper struct {
	stop     func() bool
	progress func(Stats)
	stats    *Stats
	count    int
	// weight is what a call counts (0: one), see weigh
	weight int
}

// weigh makes each call count as many steps as one of a state like s
// (stepWeight): searches that copy or key a state on every step poll
// more often where the states are large.
func (s *stopper) weigh(init System) { s.weight = stepWeight(init) }

// stepWeight is how many steps towards the next poll of Limits.Stop one
// step of a search that copies and keys a state like s counts: 1, and
// one more for every keyBytesPerStep bytes of its key (see
// keyBytesPerStep).
func stepWeight(s System) int { return 1 + len(keyOf(s, nil))/keyBytesPerStep }

func newStopper(lim Limits, stats *Stats) stopper {
	return stopper{stop: lim.Stop, progress: lim.Progress, stats: stats}
}

func (s *stopper) stopped() bool {
	if s.stop == nil && s.progress == nil {
		return false
	}
	s.count += max(s.weight, 1)
	if s.count < PollEvery {
		return false
	}
	s.count = 0
	return s.now()
}

// now reports progress and polls Limits.Stop at once; depth-first searches,
// which count their steps themselves, call it every PollEvery steps.
func (s *stopper) now() bool {
	if s.progress != nil {
		s.progress(*s.stats)
	}
	return s.stop != nil && s.stop()
}

// preferring orders runnable threads with last first (no preemption), then
// the others in increasing order, into dst.
// It moves the few threads one by one: copy and append would call
// memmove, which costs more for a handful of words (counted with
// scripts/instructions.sh: 8 to 11 fewer instructions a step of merged's
// dfs).
func preferring(dst, runnable []ThreadID, last ThreadID) []ThreadID {
	if cap(dst) < len(runnable) {
		dst = make([]ThreadID, len(runnable), 2*len(runnable))
	}
	dst = dst[:len(runnable)]
	at := -1
	for i, t := range runnable {
		dst[i] = t
		if t == last { // runnable holds it once
			at = i
		}
	}
	if at > 0 { // shift the threads before last up, and put it first
		for ; at > 0; at-- {
			dst[at] = dst[at-1]
		}
		dst[0] = last
	}
	return dst
}
