package sched

// The optional interfaces a System may implement for speed. None changes
// what a search finds or counts, only what it costs; doc.go tables which
// search uses which. (Canonical, a reduction that changes the counts, is
// with Parallel, in parallel.go.)

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
