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

// stopper polls Limits.Stop, and reports Limits.Progress, every pollEvery
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
	if s.count < pollEvery {
		return false
	}
	s.count = 0
	return s.now()
}

// now reports progress and polls Limits.Stop at once; depth-first searches,
// which count their steps themselves, call it every pollEvery steps.
func (s *stopper) now() bool {
	if s.progress != nil {
		s.progress(*s.stats)
	}
	return s.stop != nil && s.stop()
}

// preferring orders runnable threads with last first (no preemption), then
// the others in increasing order, into dst.
func preferring(dst, runnable []ThreadID, last ThreadID) []ThreadID {
	dst = append(dst[:0], runnable...)
	for i, t := range dst {
		if t == last { // runnable holds it once
			copy(dst[1:i+1], dst[:i])
			dst[0] = last
			break
		}
	}
	return dst
}
