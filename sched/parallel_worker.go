package sched

import "slices"

// One of Parallel's workers: a depth-first search from each root it
// takes, against the shared visited set, counting into the run's totals
// when it polls.

// worker is one goroutine's depth-first search.
type worker struct {
	depthFirst // its stats are not yet added to run.total
	run        *parallelRun
}

// flush adds the worker's counts to the total, polls Limits.Stop and
// reports Limits.Progress; the worker's search calls it every PollEvery
// steps.
func (w *worker) flush() {
	r := w.run
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total.Steps += w.stats.Steps
	r.total.States += w.stats.States
	r.total.Matched += w.stats.Matched
	r.total.Depth = max(r.total.Depth, w.stats.Depth)
	r.total.AddExecutions(w.stats)
	if w.sharedExecutions != nil {
		w.sharedExecutions.Add(w.stats.Executions - w.synced)
		w.synced = 0
	}
	w.stats = Stats{}
	if r.lim.Progress != nil {
		r.lim.Progress(r.total)
	}
	if r.lim.Stop != nil && r.lim.Stop() {
		if r.cut == "" && r.failure == nil {
			r.cut = "stopped"
		}
		r.stop.Store(true)
	}
}

func (w *worker) search(rt root) {
	r := w.run
	last := ThreadID(-1)
	if n := len(rt.path); n > 0 {
		last = rt.path[n-1]
	}
	const runStopped = "the run stopped" // its cut, if any, is set already
	end := w.searchFrom(rt.state, last, len(rt.path), rt.preempts, func() string {
		w.flush()
		r.cutAtMaxExecutions()
		if r.stop.Load() {
			return runStopped
		}
		return ""
	})
	switch {
	case end.failure != nil:
		r.fail(end.failure, append(slices.Clone(rt.path), end.path...), end.preempts)
	case end.cut != "" && end.cut != runStopped: // the step budget
		r.mu.Lock()
		if r.cut == "" {
			r.cut = end.cut
		}
		r.mu.Unlock()
		r.stop.Store(true)
	}
}
