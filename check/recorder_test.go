package check_test

import (
	"maps"
	"slices"

	"swapcheck/sched"
)

// What the whole-stack search tests (model_strategies_test.go) share with
// sched's own: a recorder of end states and failure kinds, and the
// runnable threads of a state.

// recorder wraps a System and records, in sets its clones share, the key
// of every state Final is called on and, when tolerant, the kind of every
// failure of a step or of Final, which it then hides so that a search goes
// on past it. A tolerant recorder turns "find the first failure" into
// "visit every transition", whose failures can be compared as a set.
type recorder struct {
	sched.System
	tolerant bool
	finals   map[string]bool
	kinds    map[string]bool
}

func newRecorder(s sched.System, tolerant bool) *recorder {
	return &recorder{System: s, tolerant: tolerant, finals: map[string]bool{}, kinds: map[string]bool{}}
}

func (r *recorder) Step(t sched.ThreadID) *sched.Failure {
	f := r.System.Step(t)
	if f != nil && r.tolerant {
		r.kinds[f.Kind] = true
		return nil
	}
	return f
}

func (r *recorder) Final() *sched.Failure {
	r.finals[string(r.System.AppendKey(nil))] = true
	f := r.System.Final()
	if f != nil && r.tolerant {
		r.kinds[f.Kind] = true
		return nil
	}
	return f
}

func (r *recorder) Clone() sched.System {
	c := *r
	c.System = r.System.Clone()
	return &c
}

func sorted(set map[string]bool) []string { return slices.Sorted(maps.Keys(set)) }

// runnableOf lists the threads of s that can run, and says whether every
// thread is done.
func runnableOf(s sched.System) (runnable []sched.ThreadID, allDone bool) {
	allDone = true
	for t := range sched.ThreadID(s.NumThreads()) {
		switch s.Status(t) {
		case sched.Runnable:
			runnable = append(runnable, t)
			allDone = false
		case sched.Blocked:
			allDone = false
		}
	}
	return runnable, allDone
}
