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

// stopper wraps Limits.Stop with the polling interval.
type stopper struct {
	stop  func() bool
	count int
}

func (s *stopper) stopped() bool {
	if s.stop == nil {
		return false
	}
	s.count++
	if s.count < pollEvery {
		return false
	}
	s.count = 0
	return s.stop()
}

// preferring orders runnable threads with last first (no preemption), then
// the others in increasing order, into dst.
func preferring(dst, runnable []ThreadID, last ThreadID) []ThreadID {
	dst = dst[:0]
	for _, t := range runnable {
		if t == last {
			dst = append(dst, t)
		}
	}
	for _, t := range runnable {
		if t != last {
			dst = append(dst, t)
		}
	}
	return dst
}
