package check

import (
	"fmt"
	"slices"
	"sync/atomic"

	"swapcheck/model"
	"swapcheck/sched"
)

// Harm is a violation's class: whether anybody is hurt by it.
//
// A launch fails when one of its threads raises: the host sets the abort
// flag on the block's threads and re-raises without joining, so the
// block's other threads linger (kernel.py's BlockManager). What such a
// lingering thread sees hurts nobody by itself: its launch has already
// raised to its caller. A violation is after-failure when only a thread
// whose launch had already failed (its abort flag set) saw it; every
// other one is harmful: a thread of a launch that has not failed, a host
// thread (its own device calls included), and every end-state and
// history invariant (a module left swapped or a registry entry left once
// every thread ended, a deadlock, a history that is not linearizable).
// What a lingering thread does to others shows as a harmful violation of
// theirs: a later launch's thread that finds the module swapped to None
// or to the failed launch's fake.
type Harm uint8

const (
	// Harmful: someone other than a lingering thread is hurt.
	Harmful Harm = 1 + iota
	// AfterFailure: only a thread of an already-failed launch saw it.
	AfterFailure
)

// String is the class as traces, summaries and schedules spell it.
func (h Harm) String() string {
	switch h {
	case Harmful:
		return "harmful"
	case AfterFailure:
		return "after-failure"
	}
	return fmt.Sprintf("Harm(%d)", uint8(h))
}

// ParseHarm reads a class as String spells it.
func ParseHarm(s string) (Harm, error) {
	for _, h := range []Harm{Harmful, AfterFailure} {
		if s == h.String() {
			return h, nil
		}
	}
	return 0, fmt.Errorf("unknown violation class %q (want harmful or after-failure)", s)
}

// Scope says which violations end a search: by default only harmful ones
// (an after-failure violation is counted and the execution goes on, so a
// harmful violation behind it is still found); ScopeAll, -after-failure,
// ends an execution at either class, as every violation did before the
// classes existed.
type Scope uint8

const (
	// ScopeHarmful: a search looks for harmful violations (the default).
	ScopeHarmful Scope = 1 + iota
	// ScopeAll: every violation, after-failure ones included.
	ScopeAll
)

// String is the scope as schedule.txt, trace.json and summary.json spell
// it ("violations harmful").
func (s Scope) String() string {
	switch s {
	case ScopeHarmful:
		return "harmful"
	case ScopeAll:
		return "all"
	}
	return fmt.Sprintf("Scope(%d)", uint8(s))
}

// ParseScope reads a scope as String spells it.
func ParseScope(s string) (Scope, error) {
	for _, sc := range []Scope{ScopeHarmful, ScopeAll} {
		if s == sc.String() {
			return sc, nil
		}
	}
	return 0, fmt.Errorf("unknown violations scope %q (want harmful or all)", s)
}

// eventHarm is the class of a per-step violation at ev: after-failure when
// the stepping thread's launch had already failed.
func eventHarm(ev *model.Event) Harm {
	if ev.Aborted {
		return AfterFailure
	}
	return Harmful
}

// passed counts the after-failure violations a search stepped past, over
// all the clones of one System (parallel searches step them on several
// goroutines): how many steps, and which kinds (a bit per index in Kinds).
type passed struct {
	steps atomic.Int64
	kinds atomic.Uint32
}

// note records one after-failure violation of kind.
func (p *passed) note(kind string) {
	p.steps.Add(1)
	bit := uint32(1) << slices.Index(Kinds, kind)
	for {
		old := p.kinds.Load()
		if old&bit != 0 || p.kinds.CompareAndSwap(old, old|bit) {
			return
		}
	}
}

// kindList is the kinds noted, in Kinds order.
func (p *passed) kindList() []string {
	var out []string
	bits := p.kinds.Load()
	for i, k := range Kinds {
		if bits&(1<<i) != 0 {
			out = append(out, k)
		}
	}
	return out
}

// FailureHarm is the class of the violation a counterexample ends in:
// schedule replayed on prog, the failing thread's abort flag at its last
// step; for a history that is not linearizable, whether it is without
// the lingering threads' reads (see historyFailure). End-state and
// deadlock failures are harmful.
func FailureHarm(prog *model.Program, schedule []sched.ThreadID, f *sched.Failure) Harm {
	if f != nil && f.Kind == KindNotLinearizable {
		return historyHarm(prog, schedule)
	}
	if f == nil || f.Thread < 0 || len(schedule) == 0 {
		return Harmful
	}
	w := model.New(prog)
	var ev *model.Event
	for _, t := range schedule {
		if w.Status(int(t)) != sched.Runnable {
			return Harmful // does not replay: the search's own failure is no one lingering thread's
		}
		ev = w.Step(int(t))
	}
	if int(f.Thread) != ev.Thread {
		return Harmful
	}
	return eventHarm(ev)
}

// historyHarm is the class of the history failure of schedule's whole
// execution on prog (Harmful when it does not replay).
func historyHarm(prog *model.Program, schedule []sched.ThreadID) Harm {
	ints := make([]int, len(schedule))
	for i, t := range schedule {
		ints[i] = int(t)
	}
	h, err := History(prog, ints)
	if err != nil {
		return Harmful
	}
	if _, harm := historyFailure(h); harm == AfterFailure {
		return AfterFailure
	}
	return Harmful
}
