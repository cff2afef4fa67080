package check

import (
	"sync/atomic"

	"swapcheck/model"
	"swapcheck/sched"
)

// System is a model.World under the invariants: a sched.System whose steps
// fail when a per-step invariant breaks and whose Final checks the end state.
type System struct {
	w *model.World
	// locksLeft, shared by all clones (which parallel searches step on
	// several goroutines), is the most per-module locks left in
	// _globals_locks at the end of an execution.
	locksLeft *atomic.Int64
	// scope says which violations fail a step (see Scope); passed, shared
	// by all clones, counts the after-failure ones stepped past.
	scope  Scope
	passed *passed
	// lastHarm is the class of the last failure Step returned.
	lastHarm Harm
	// faulted, shared by all clones, counts the executions that ended
	// (Final) with a fault among their steps (scenario/faults.go).
	faulted *atomic.Int64
}

// NewSystem starts a checked world for a program, failing on harmful
// violations only (ScopeHarmful).
func NewSystem(p *model.Program) *System { return NewScopedSystem(p, ScopeHarmful) }

// NewScopedSystem starts a checked world for a program whose steps fail
// on the violations of scope.
func NewScopedSystem(p *model.Program, scope Scope) *System {
	if scope != ScopeAll {
		scope = ScopeHarmful
	}
	return systemOf(model.New(p), scope)
}

// systemOf is w under the invariants of scope, with counters of its own.
func systemOf(w *model.World, scope Scope) *System {
	return &System{w: w, locksLeft: new(atomic.Int64), scope: scope, passed: new(passed), faulted: new(atomic.Int64)}
}

// AfterFailures is how many steps of the searches on this system (and its
// clones) broke a per-step invariant after failure, and stepped past
// because the scope is ScopeHarmful, and their kinds in Kinds order.
func (s *System) AfterFailures() (int64, []string) { return s.passed.steps.Load(), s.passed.kindList() }

// World is the checked world (for traces; do not modify it).
func (s *System) World() *model.World { return s.w }

// LocksLeft is the most per-module locks any finished execution left behind.
func (s *System) LocksLeft() int { return int(s.locksLeft.Load()) }

// Faulted counts the executions that ended with a fault among their
// steps (for a stateful search, the end states it reached by a path with
// one).
func (s *System) Faulted() int64 { return s.faulted.Load() }

// NumThreads implements sched.System.
func (s *System) NumThreads() int { return s.w.NumThreads() }

// Status implements sched.System.
func (s *System) Status(t sched.ThreadID) sched.Status { return s.w.Status(int(t)) }

// AppendRunnable implements sched.RunnableLister.
func (s *System) AppendRunnable(buf []sched.ThreadID) ([]sched.ThreadID, bool) {
	return s.w.AppendRunnable(buf)
}

// Footprint implements sched.System.
func (s *System) Footprint(t sched.ThreadID) sched.Footprint { return s.w.Footprint(int(t)) }

// Step implements sched.System. Under ScopeHarmful an after-failure
// violation does not fail the step: it is counted, and the thread goes on
// as the simulator's does (it raised, or its use raised AttributeError).
func (s *System) Step(t sched.ThreadID) *sched.Failure {
	f, h := stepFailure(s.w.Program(), s.w.Step(int(t)))
	if f == nil {
		return nil
	}
	if h == AfterFailure && s.scope == ScopeHarmful {
		s.passed.note(f.Kind)
		return nil
	}
	s.lastHarm = h
	return f
}

// MayConflict implements sched.Futures. Step fails every use that does
// not see its launch's fake and every exception of the swap machinery:
// the world's deathsFail.
func (s *System) MayConflict(p, q sched.ThreadID, frozen []bool) bool {
	return s.w.MayConflict(int(p), int(q), frozen, true)
}

// Acyclic implements sched.Futures (model.World.Acyclic).
func (s *System) Acyclic() bool { return s.w.Acyclic() }

// NewFuturesScratch implements sched.Futures.
func (s *System) NewFuturesScratch() any { return s.w.NewFuturesScratch() }

// UseFuturesScratch implements sched.Futures.
func (s *System) UseFuturesScratch(x any) { s.w.UseFuturesScratch(x) }

// AppendCanonicalTies implements sched.CanonicalTies.
func (s *System) AppendCanonicalTies(order []sched.ThreadID, buf []bool) []bool {
	return s.w.AppendCanonicalTies(order, buf)
}

// AppendCanonicalOrder implements sched.CanonicalOrderer.
func (s *System) AppendCanonicalOrder(buf []sched.ThreadID) []sched.ThreadID {
	return s.w.AppendCanonicalOrder(buf)
}

// AppendEnablers implements sched.Futures.
func (s *System) AppendEnablers(q sched.ThreadID, frozen []bool, buf []sched.ThreadID) []sched.ThreadID {
	return s.w.AppendEnablers(int(q), frozen, buf)
}

// RecordHistory makes the system record the history of each execution and
// check, at its end, that it is linearizable (see Linearizable). Walks use
// it; stateful searches cannot, since their paths share states.
func (s *System) RecordHistory() { s.w.History = &model.History{} }

// Final implements sched.System.
func (s *System) Final() *sched.Failure {
	if h := s.w.History; h != nil {
		if f, harm := historyFailure(h); f != nil {
			if harm != AfterFailure || s.scope != ScopeHarmful {
				s.lastHarm = harm
				return f
			}
			s.passed.note(f.Kind)
		}
	}
	if s.w.Faults() > 0 {
		s.faulted.Add(1)
	}
	n := 0
	for m := range s.w.Program().Scenario.Modules {
		if s.w.Registry(m).Lock != 0 {
			n++
		}
	}
	for {
		old := s.locksLeft.Load()
		if int64(n) <= old || s.locksLeft.CompareAndSwap(old, int64(n)) {
			break
		}
	}
	s.lastHarm = Harmful
	return finalFailure(s.w)
}

// Clone implements sched.System.
func (s *System) Clone() sched.System {
	c := &System{w: s.w.Clone(), locksLeft: s.locksLeft, scope: s.scope, passed: s.passed, lastHarm: s.lastHarm, faulted: s.faulted}
	if h := s.w.History; h != nil {
		c.w.History = &model.History{Marks: append([]model.Mark(nil), h.Marks...)}
	}
	return c
}

// CopyFrom implements sched.Copier.
func (s *System) CopyFrom(src sched.System) {
	o := src.(*System)
	s.w.CopyFrom(o.w)
	s.lastHarm = o.lastHarm
}

// AppendCompactKey implements sched.Compact.
func (s *System) AppendCompactKey(b []byte) []byte { return s.w.AppendCompactKey(b) }

// PeekWord implements sched.WordPeeker: the memo's word of the state
// after t's step, unless the step fails.
func (s *System) PeekWord(t sched.ThreadID) (uint64, sched.PeekNote, bool) {
	return unlessFailing(s.w.PeekWord(int(t)))
}

// PeekAgain implements sched.WordPeeker.
func (s *System) PeekAgain(t sched.ThreadID, note sched.PeekNote) (uint64, sched.PeekNote, bool) {
	return unlessFailing(s.w.PeekAgain(int(t), note))
}

// unlessFailing is a model peek's word and note, unless the step it told
// of breaks an invariant: a search must step that one, to fail there.
func unlessFailing(word uint64, note sched.PeekNote, ev *model.Event, ok bool) (uint64, sched.PeekNote, bool) {
	if !ok || failing(ev) {
		return 0, note, false
	}
	return word, note, true
}

// TakePeeked implements sched.WordPeeker.
func (s *System) TakePeeked(parent sched.System, t sched.ThreadID, note sched.PeekNote) {
	s.w.TakePeeked(parent.(*System).w, int(t), note)
}

// CompactWord implements sched.Compact.
func (s *System) CompactWord() (uint64, bool) { return s.w.CompactWord() }

// AppendKey implements sched.System.
func (s *System) AppendKey(b []byte) []byte { return s.w.AppendKey(b) }

// AppendCanonicalKey implements sched.Canonical: the key of the state up to
// permuting the threads of each block (see model.World.AppendCanonicalKey).
func (s *System) AppendCanonicalKey(b []byte) []byte { return s.w.AppendCanonicalKey(b) }

// The optional sched interfaces System implements: a method renamed on
// either side fails the build here, not as a silent slowdown.
var (
	_ sched.System           = (*System)(nil)
	_ sched.Copier           = (*System)(nil)
	_ sched.Compact          = (*System)(nil)
	_ sched.WordPeeker       = (*System)(nil)
	_ sched.RunnableLister   = (*System)(nil)
	_ sched.Canonical        = (*System)(nil)
	_ sched.CanonicalOrderer = (*System)(nil)
	_ sched.CanonicalTies    = (*System)(nil)
	_ sched.Futures          = (*System)(nil)
)
