package check

import (
	"cmp"
	"encoding/binary"

	"swapcheck/sched"
)

// aimed is a system that fails only with one violation kind, for the
// shrinker's searches (shrink.go): a step or an end state that breaks
// another invariant, or a deadlock when the kind is not "deadlock", ends
// its execution without a failure, so a search goes on looking for the
// kind it aims at rather than stopping at the first other one. Every
// counterexample it finds is a schedule that a plain System fails on
// with that kind: an execution is cut at the first other failure, never
// carried past it.
//
// With bound 0 or more it also allows at most bound preemptions (a
// switch away from the thread that ran last while it could still run,
// as sched.CountPreemptions counts them): once they are spent, every
// other thread shows as blocked while the last one can run. A
// breadth-first search of it then finds the shortest counterexample
// with at most bound preemptions.
type aimed struct {
	inner *System
	kind  string
	// harm is the class aimed at: a failure of the kind but of the other
	// class ends the execution like any other failure, so that shrinking
	// keeps the class (under ScopeHarmful every failure is harmful).
	harm  Harm
	bound int // the most preemptions; below 0, no bound
	last  sched.ThreadID
	used  int
	// dead: the execution broke another invariant, and ends here.
	dead bool
}

func newAimed(inner *System, kind string, harm Harm, bound int) *aimed {
	return &aimed{inner: inner, kind: kind, harm: cmp.Or(harm, Harmful), bound: bound, last: -1}
}

// NumThreads implements sched.System.
func (a *aimed) NumThreads() int { return a.inner.NumThreads() }

// Status implements sched.System.
func (a *aimed) Status(t sched.ThreadID) sched.Status {
	if a.dead {
		return sched.Done
	}
	st := a.inner.Status(t)
	if st == sched.Runnable && a.spent() && t != a.last && a.inner.Status(a.last) == sched.Runnable {
		return sched.Blocked
	}
	return st
}

// spent reports whether every preemption the bound allows is used.
func (a *aimed) spent() bool { return a.bound >= 0 && a.last >= 0 && a.used >= a.bound }

// Footprint implements sched.System.
func (a *aimed) Footprint(t sched.ThreadID) sched.Footprint { return a.inner.Footprint(t) }

// Step implements sched.System.
func (a *aimed) Step(t sched.ThreadID) *sched.Failure {
	if a.bound >= 0 {
		if a.last >= 0 && t != a.last && a.inner.Status(a.last) == sched.Runnable {
			a.used++
		}
		a.last = t
	}
	f := a.inner.Step(t)
	switch {
	case f != nil && f.Kind == a.kind && a.inner.lastHarm == a.harm:
		return f
	case f != nil:
		a.dead = true
	case a.kind != KindDeadlock && a.deadlocked():
		a.dead = true
	}
	return nil
}

// deadlocked reports whether no thread of the inner system can move
// while some is not done (the scheduler's deadlock).
func (a *aimed) deadlocked() bool {
	done := true
	for t := range a.inner.NumThreads() {
		switch a.inner.Status(sched.ThreadID(t)) {
		case sched.Runnable:
			return false
		case sched.Blocked:
			done = false
		}
	}
	return !done
}

// Final implements sched.System.
func (a *aimed) Final() *sched.Failure {
	if a.dead {
		return nil
	}
	if f := a.inner.Final(); f != nil && f.Kind == a.kind && a.harm == Harmful {
		return f
	}
	return nil
}

// Clone implements sched.System.
func (a *aimed) Clone() sched.System {
	c := *a
	c.inner = a.inner.Clone().(*System)
	return &c
}

// AppendKey implements sched.System: the inner state's key, whether the
// execution has ended, and under a bound the last thread and the
// preemptions used (states equal but for them can do different things).
func (a *aimed) AppendKey(b []byte) []byte { return a.suffix(a.inner.AppendKey(b)) }

// AppendCanonicalKey implements sched.Canonical, for the states search:
// the inner state's key up to permuting its interchangeable threads, and
// whether the execution has ended. Under a bound, which names the last
// thread, it is the exact key.
func (a *aimed) AppendCanonicalKey(b []byte) []byte {
	if a.bound >= 0 {
		return a.AppendKey(b)
	}
	return a.suffix(a.inner.AppendCanonicalKey(b))
}

// The rest are sched's optional interfaces, for speed only: the inner
// system's compact key and in-place copy, with the aimed state after
// them. (A fixed-length suffix keeps keys of different states apart.)
// Without them a search weighs each step by the full key (see
// sched.Limits.Stop): the breadth-first search of nested-two-modules.txt
// under refcount-unregistered, free-threaded-overwrite, ran out of four
// times ShrinkBudget; with them it fits in ShrinkBudget.

// AppendCompactKey implements sched.Compact.
func (a *aimed) AppendCompactKey(b []byte) []byte {
	return a.suffix(a.inner.AppendCompactKey(b))
}

// CompactWord implements sched.Compact: the aimed key is no word key.
func (a *aimed) CompactWord() (uint64, bool) { return 0, false }

// CopyFrom implements sched.Copier.
func (a *aimed) CopyFrom(src sched.System) {
	o := src.(*aimed)
	inner := a.inner
	inner.CopyFrom(o.inner)
	*a = *o
	a.inner = inner
}

// suffix appends what the aimed system adds to its inner state.
func (a *aimed) suffix(b []byte) []byte {
	if a.dead {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	if a.bound >= 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(a.last))
		b = binary.LittleEndian.AppendUint32(b, uint32(a.used))
	}
	return b
}
