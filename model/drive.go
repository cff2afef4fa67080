package model

// Driving one World from several goroutines (package stress runs every
// thread of a launch as a goroutine). The driver makes each step atomic
// with respect to the steps its footprint conflicts with; these accessors
// let it do so without reading state another goroutine may be writing.

// Share returns a handle on w's state (the same vector, not a copy) with
// its own step scratch (the event and the instruction context), so that
// goroutines can step different threads of one world at once, each through
// its own handle. The handles must not trace or record a history.
func (w *World) Share() *World {
	w.sync()
	c := &World{p: w.p, s: w.s}
	c.cache.shared = true
	return c
}

// Started reports whether thread t has been started (the host always is).
// Only the host's start step changes it, so the host may read it for any
// thread it has not yet handed to a goroutine.
func (w *World) Started(t int) bool {
	w.sync()
	return w.s[w.thread(t)+tStatus] != notStarted
}

// Done reports whether thread t has finished (returned, or died with an
// exception). Unlike Status it reads only t's own status, which after its
// start only t's own steps change: t's goroutine may read it unlocked.
func (w *World) Done(t int) bool {
	w.sync()
	return w.s[w.thread(t)+tStatus] == finished
}

// EntersCall reports whether thread t's next step enters a device call
// (with swapped_cuda_module(...) in the caller); it reads t's own frame.
func (w *World) EntersCall(t int) bool {
	w.sync()
	f := w.top(t)
	if w.s[w.thread(t)+tStatus] != alive || w.s[f+fInBody] != 1 {
		return false
	}
	st := w.bodyStmt(t)
	return st != nil && rowOf(st).entersCall
}

// NumObjects bounds the objects of footprints: every Footprint(t).Object
// is below it.
func (p *Program) NumObjects() int { return p.lay.numObjects }

// NumGroups bounds the groups of footprints: every Footprint(t).Group is
// below it.
func (p *Program) NumGroups() int { return len(p.blockThreads) + 1 }
