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
// calls.
type stopper struct {
	stop     func() bool
	progress func(Stats)
	stats    *Stats
	count    int
}

func newStopper(lim Limits, stats *Stats) stopper {
	return stopper{stop: lim.Stop, progress: lim.Progress, stats: stats}
}

func (s *stopper) stopped() bool {
	if s.stop == nil && s.progress == nil {
		return false
	}
	s.count++
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
