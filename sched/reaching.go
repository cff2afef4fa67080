package sched

import "slices"

// Reaching wraps a System so that a complete search of it meets
// every violation kind reachable in the inner system, where a plain
// search stops at the first one it meets (whichever its depth-first
// order finds first). A step or an end state that fails records its
// kind and ends that execution: the wrapper then reports every thread
// done (the failing thread and every other stop) and an end state that
// fails nothing; a step after which no thread can move while some are
// not done records the scheduler's deadlock the same way. Every state
// reachable in the inner system before its first failure is reachable
// here, with the same steps enabled, so a search that ends Verified has
// taken every failing step and reached every failing end.
//
// With a target kind (aiming), a failure of that kind is reported as
// the failure it is, so that the search stops at the first one: whether
// the kind is reachable at all, at the cost of finding it.
type Reaching struct {
	inner  System
	kinds  map[string]bool // shared by every clone: one search, one goroutine
	target string
	ended  bool
}

// NewReaching wraps inner; Kinds says, after a complete search, every
// kind reachable in it.
func NewReaching(inner System) *Reaching {
	return &Reaching{inner: inner, kinds: map[string]bool{}}
}

// NewAiming is a Reaching system whose search stops at target.
func NewAiming(inner System, target string) *Reaching {
	r := NewReaching(inner)
	r.target = target
	return r
}

// Kinds is the kinds recorded so far, sorted.
func (r *Reaching) Kinds() []string {
	out := make([]string, 0, len(r.kinds))
	for k := range r.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (r *Reaching) NumThreads() int { return r.inner.NumThreads() }

func (r *Reaching) Status(t ThreadID) Status {
	if r.ended {
		return Done
	}
	return r.inner.Status(t)
}

func (r *Reaching) Footprint(t ThreadID) Footprint { return r.inner.Footprint(t) }

func (r *Reaching) Step(t ThreadID) *Failure {
	if f := r.inner.Step(t); f != nil {
		return r.end(f)
	}
	if r.stuck() {
		return r.end(&Failure{Kind: KindDeadlock, Thread: -1, Message: "no thread can move"})
	}
	return nil
}

// stuck reports whether no thread of the inner system can move while
// some thread is not done (the scheduler's deadlock).
func (r *Reaching) stuck() bool {
	done := true
	for t := range r.inner.NumThreads() {
		switch r.inner.Status(ThreadID(t)) {
		case Runnable:
			return false
		case Blocked:
			done = false
		}
	}
	return !done
}

// end records f's kind and ends the execution; it returns f only when
// it is the target's.
func (r *Reaching) end(f *Failure) *Failure {
	r.kinds[f.Kind] = true
	r.ended = true
	if f.Kind == r.target {
		return f
	}
	return nil
}

func (r *Reaching) Final() *Failure {
	if r.ended {
		return nil
	}
	if f := r.inner.Final(); f != nil {
		r.kinds[f.Kind] = true
		if f.Kind == r.target {
			return f
		}
	}
	return nil
}

func (r *Reaching) Clone() System {
	return &Reaching{inner: r.inner.Clone(), kinds: r.kinds, target: r.target, ended: r.ended}
}

// AppendKey is the inner key, or one key for every ended execution: an
// ended state has no future, and its kind was recorded when it ended.
func (r *Reaching) AppendKey(b []byte) []byte {
	if r.ended {
		return append(b, 1)
	}
	return r.inner.AppendKey(append(b, 0))
}

// ReachingFutures is a Reaching whose inner system has Futures, which it
// passes on, so that POR reduces the search for every kind as it reduces
// the inner system's (an ended state has no runnable thread, so POR asks
// nothing of it); its canonical order, where the inner system has one,
// too.
type ReachingFutures struct{ *Reaching }

// NewReachingFutures wraps inner, which must have Futures.
func NewReachingFutures(inner System) ReachingFutures {
	if _, ok := inner.(Futures); !ok {
		panic("sched: NewReachingFutures of a system without Futures")
	}
	return ReachingFutures{NewReaching(inner)}
}

func (r ReachingFutures) Clone() System { return ReachingFutures{r.Reaching.Clone().(*Reaching)} }

func (r ReachingFutures) fut() Futures { return r.inner.(Futures) }

func (r ReachingFutures) MayConflict(p, q ThreadID, frozen []bool) bool {
	return r.fut().MayConflict(p, q, frozen)
}

func (r ReachingFutures) AppendEnablers(q ThreadID, frozen []bool, buf []ThreadID) []ThreadID {
	return r.fut().AppendEnablers(q, frozen, buf)
}

func (r ReachingFutures) Acyclic() bool           { return r.fut().Acyclic() }
func (r ReachingFutures) NewFuturesScratch() any  { return r.fut().NewFuturesScratch() }
func (r ReachingFutures) UseFuturesScratch(x any) { r.fut().UseFuturesScratch(x) }

func (r ReachingFutures) AppendCanonicalOrder(buf []ThreadID) []ThreadID {
	if co, ok := r.inner.(CanonicalOrderer); ok {
		return co.AppendCanonicalOrder(buf)
	}
	for t := range ThreadID(r.inner.NumThreads()) {
		buf = append(buf, t)
	}
	return buf
}

func (r ReachingFutures) AppendCanonicalTies(order []ThreadID, buf []bool) []bool {
	if ct, ok := r.inner.(CanonicalTies); ok && !r.ended {
		return ct.AppendCanonicalTies(order, buf)
	}
	return append(buf, make([]bool, len(order))...)
}

func (r ReachingFutures) SkipTiedChildren() bool {
	tc, ok := r.inner.(TiedChildren)
	return ok && tc.SkipTiedChildren()
}
