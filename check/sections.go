package check

import (
	"swapcheck/model"
	"swapcheck/sched"
)

// SectionBase is what Sections wraps: a checked system (System, or a
// test's system built on one) that POR can reduce.
type SectionBase interface {
	sched.System
	sched.Futures
	sched.Canonical
	sched.CanonicalOrderer
	sched.CanonicalTies
	sched.RunnableLister
	sched.Copier
	World() *model.World
}

// Sections is base's world with each critical section of the swap one
// step: a step that acquires a lock runs on until the thread releases it,
// and POR runs a thread whose next step starts a section alone
// (model/reduce_sections.go says why, and which worlds it covers:
// model.Program.Sections). It does not offer base's peeks (sched.WordPeeker),
// whose children are single steps.
func Sections(base SectionBase) sched.System { return &sections{base} }

type sections struct{ b SectionBase }

// Step implements sched.System: StepSection of base's steps.
func (s *sections) Step(t sched.ThreadID) *sched.Failure {
	return StepSection(s.b.World(), t, func() *sched.Failure { return s.b.Step(t) })
}

// StepSection is thread t's step in w's world of sections: one step,
// then, while t is in a section and no step failed, its next steps, up
// to the release; then what t holds dead is zeroed (model.World.Settle).
// step takes one step of t in w.
func StepSection(w *model.World, t sched.ThreadID, step func() *sched.Failure) *sched.Failure {
	f := step()
	for f == nil && w.InSection(int(t)) {
		f = step()
	}
	w.Settle(int(t))
	return f
}

// MayConflict implements sched.Futures: a step that starts a section
// conflicts with none, in the worlds Sections covers, but the host's poll
// where it ends the thread (model.World.CommutingSection).
func (s *sections) MayConflict(p, q sched.ThreadID, frozen []bool) bool {
	if s.b.World().CommutingSection(int(p), int(q)) {
		return false
	}
	return s.b.MayConflict(p, q, frozen)
}

func (s *sections) NumThreads() int                            { return s.b.NumThreads() }
func (s *sections) Status(t sched.ThreadID) sched.Status       { return s.b.Status(t) }
func (s *sections) Footprint(t sched.ThreadID) sched.Footprint { return s.b.Footprint(t) }
func (s *sections) Final() *sched.Failure                      { return s.b.Final() }
func (s *sections) Clone() sched.System                        { return &sections{s.b.Clone().(SectionBase)} }
func (s *sections) CopyFrom(src sched.System)                  { s.b.CopyFrom(src.(*sections).b) }
func (s *sections) AppendKey(b []byte) []byte                  { return s.b.AppendKey(b) }
func (s *sections) AppendCanonicalKey(b []byte) []byte         { return s.b.AppendCanonicalKey(b) }
func (s *sections) Acyclic() bool                              { return s.b.Acyclic() }
func (s *sections) NewFuturesScratch() any                     { return s.b.NewFuturesScratch() }
func (s *sections) UseFuturesScratch(x any)                    { s.b.UseFuturesScratch(x) }
func (s *sections) AppendEnablers(q sched.ThreadID, frozen []bool, buf []sched.ThreadID) []sched.ThreadID {
	return s.b.AppendEnablers(q, frozen, buf)
}
func (s *sections) AppendCanonicalOrder(buf []sched.ThreadID) []sched.ThreadID {
	return s.b.AppendCanonicalOrder(buf)
}
func (s *sections) AppendCanonicalTies(order []sched.ThreadID, buf []bool) []bool {
	return s.b.AppendCanonicalTies(order, buf)
}
func (s *sections) AppendRunnable(buf []sched.ThreadID) ([]sched.ThreadID, bool) {
	return s.b.AppendRunnable(buf)
}
