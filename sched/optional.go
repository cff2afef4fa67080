package sched

// The optional interfaces a System may implement, each for speed or for
// a reduction; doc.go tables which search uses which. The speed ones
// (Copier, Compact, WordPeeker, RunnableLister) change nothing a search
// finds or counts, only what it costs. The reductions (Canonical,
// CanonicalOrderer, Futures, at the end of the file) change the counts,
// never the verdict.

// Copier is implemented by systems that can overwrite their own state with
// another state of the same system without allocating. Searches use it to
// recycle states they are done with; systems without it are cloned.
type Copier interface {
	CopyFrom(src System)
}

// Compact is implemented by systems with an exact key shorter than
// AppendKey's: AppendCompactKey gives two states equal keys exactly when
// AppendKey does. The exact stateful searches store it in their visited
// sets instead (fewer bytes to hash, compare and keep). CompactWord gives
// the same key packed in a word without writing its bytes, where it is a
// word key: it returns WordKey(AppendCompactKey(nil)), and a system packs
// the key's uvarints with PackUvarint to agree with it. The exact
// depth-first searches take every state's key that is a word key so.
type Compact interface {
	AppendCompactKey(b []byte) []byte
	CompactWord() (uint64, bool)
}

// WordPeeker is implemented by Compact systems that can tell the word key
// of a child without making it: PeekWord(t) is CompactWord of a copy of
// the receiver after t's step, when it knows it and the step does not
// fail (ok), and must then agree with stepping a copy. A search that
// meets most children again (most of an exhaustive search's steps) then
// makes only the new ones: TakePeeked(parent, t, note), on a state like
// parent, makes it what a copy of parent is after Step(t), where note is
// what parent's PeekWord(t) gave with the word (so the step need not be
// looked up again). A search may ask PeekWord of a thread that cannot
// run (it peeks at the next step of the thread that ran last before it
// lists the runnable threads, and drops the peek if that thread is not
// among them): PeekWord must not fail then, and what it says is not used.
//
// PeekAgain peeks two steps of one thread ahead: PeekAgain(t, note) is
// what PeekWord(t) would say of the state TakePeeked(s, t, note) would
// make, where note is what s's PeekWord(t) noted. A system that cannot
// tell says not ok, and the search then peeks at that step only once the
// child is made.
type WordPeeker interface {
	Compact
	PeekWord(t ThreadID) (word uint64, note PeekNote, ok bool)
	TakePeeked(parent System, t ThreadID, note PeekNote)
	PeekAgain(t ThreadID, note PeekNote) (word uint64, again PeekNote, ok bool)
}

// PeekNote is what a WordPeeker notes of a step it peeked at, for its
// TakePeeked; a search only hands it back. It is a struct, not an array,
// so that Go passes it in registers (its register ABI does not pass
// arrays of more than one element so): counted with
// scripts/instructions.sh, 20 fewer instructions a step.
type PeekNote struct{ A, B uint64 }

// keyOf is s's exact key: its compact key where s offers one, else
// AppendKey's, appended to buf.
func keyOf(s System, buf []byte) []byte {
	if c, ok := s.(Compact); ok {
		return c.AppendCompactKey(buf[:0])
	}
	return s.AppendKey(buf[:0])
}

// pool recycles states.
type pool struct{ free []System }

// copyOf returns a copy of s, reusing a recycled state when it can.
func (p *pool) copyOf(s System) System {
	if n := len(p.free); n > 0 {
		if c, ok := p.free[n-1].(Copier); ok {
			p.free = p.free[:n-1]
			c.CopyFrom(s)
			return c.(System)
		}
	}
	return s.Clone()
}

// put gives back a state nothing refers to any more.
func (p *pool) put(s System) {
	if _, ok := s.(Copier); ok {
		p.free = append(p.free, s)
	}
}

// RunnableLister is implemented by systems that list their runnable
// threads in one call, faster than a Status call per thread: AppendRunnable
// appends them to buf in increasing order and reports whether every thread
// is done, exactly as Status would tell.
type RunnableLister interface {
	AppendRunnable(buf []ThreadID) ([]ThreadID, bool)
}

// Runnable appends the runnable threads of s to buf, in increasing order,
// and reports whether every thread is done.
func runnable(s System, buf []ThreadID) ([]ThreadID, bool) {
	l, _ := s.(RunnableLister)
	return listRunnable(s, l, buf)
}

// RunnableThreads is the runnable threads of s, in increasing order: what
// a walk outside the strategies (a test's random walk) chooses among.
func RunnableThreads(s System) []ThreadID {
	out, _ := runnable(s, nil)
	return out
}

// listRunnable is runnable of s, which is l as a RunnableLister (nil if
// it is not one): a search that keeps its states' assertions need not
// make one more per state.
func listRunnable(s System, l RunnableLister, buf []ThreadID) ([]ThreadID, bool) {
	buf = buf[:0]
	if l != nil {
		return l.AppendRunnable(buf)
	}
	allDone := true
	for t := range s.NumThreads() {
		switch s.Status(ThreadID(t)) {
		case Runnable:
			buf = append(buf, ThreadID(t))
			allDone = false
		case Blocked:
			allDone = false
		}
	}
	return buf, allDone
}

// Canonical is implemented by systems with interchangeable threads: the
// canonical key is equal for states that differ by a permutation of such
// threads (and only for those).
type Canonical interface {
	AppendCanonicalKey(b []byte) []byte
}

// CanonicalOrderer is implemented by Canonical systems that can list
// their threads in the order their canonical key takes them: for states s
// and π(s), π a permutation the key ignores, the orders are each other's
// image under π, but for threads whose swap leaves the state as it is.
// POR takes threads in this order, so that its persistent sets are the
// same up to symmetry at every state of an orbit.
type CanonicalOrderer interface {
	AppendCanonicalOrder(buf []ThreadID) []ThreadID
}

// CanonicalTies is implemented by CanonicalOrderers that can say which
// threads their order ties: two threads tied at a state are neighbours in
// its canonical order whose swap leaves the state as it is. The closure
// POR works out from one is then the image under the swap of the closure
// from the other, but for the order in which the closure meets the two,
// so POR tries one seed of each run of tied threads (porReducer.ample).
type CanonicalTies interface {
	// AppendCanonicalTies appends to buf, for each thread of order (what
	// AppendCanonicalOrder returned for this state) in turn, whether it
	// ties with the thread before it in order.
	AppendCanonicalTies(order []ThreadID, buf []bool) []bool
}

// TiedChildren is implemented by CanonicalTies systems that let POR
// leave out the child of a thread tied with one whose child it keeps:
// the swap of the two, which leaves the state as it is, maps one child
// to the other, so the two have one canonical key and the second would
// only be matched. The counts change (fewer matched steps, fewer
// executions), the states reached do not.
type TiedChildren interface {
	SkipTiedChildren() bool
}

// Futures is implemented by systems that can bound what their threads may
// still do, for POR. frozen marks the threads of a set T, which take no
// step in the executions MayConflict and AppendEnablers speak of; a method
// may use it only to say less (a thread held up by a frozen thread's lock
// does not get past it). Both must hold for every execution from the
// current state in which no frozen thread steps and no step fails but the
// last (a failing step ends an execution), or POR misses states.
type Futures interface {
	// MayConflict reports whether thread q, not frozen, may come to take a
	// step dependent with thread p's next step, which can run, p frozen: a
	// step that does not commute with it, or that enables or disables it,
	// or that it enables or disables.
	MayConflict(p, q ThreadID, frozen []bool) bool
	// AppendEnablers appends to buf the threads one of which steps in
	// every execution in which thread q's next step, blocked now, becomes
	// runnable without a step of a frozen thread (q itself is frozen).
	AppendEnablers(q ThreadID, frozen []bool, buf []ThreadID) []ThreadID
	// Acyclic reports whether the state graph has no cycle: no execution
	// returns to a state it left. POR needs no proviso then (see POR), and
	// can run on several workers.
	Acyclic() bool
	// NewFuturesScratch makes scratch (a memo) for the two methods above
	// that two goroutines must not share, or nil where they need none:
	// POR makes one for each goroutine it runs on and hands it to a state
	// with UseFuturesScratch each time before it asks of it; the state may
	// keep in it what it worked out of itself until it is handed one
	// again.
	NewFuturesScratch() any
	UseFuturesScratch(scratch any)
}
