package sched

import "fmt"

// ThreadID names a thread of a System: 0, 1, ... NumThreads()-1.
type ThreadID int

// Status is what a thread's next step can do now.
type Status uint8

const (
	// Runnable: the next step can execute.
	Runnable Status = 1 + iota
	// Blocked: the next step waits (a lock held by another thread, a barrier).
	Blocked
	// Done: the thread has no more steps.
	Done
)

func (s Status) String() string {
	switch s {
	case Runnable:
		return "runnable"
	case Blocked:
		return "blocked"
	case Done:
		return "done"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Access says how a step touches its object.
type Access uint8

const (
	// Local: the step touches no shared object.
	Local Access = 1 + iota
	// Read: the step reads the object.
	Read
	// Write: the step writes (or reads and writes) the object.
	Write
)

func (a Access) String() string {
	switch a {
	case Local:
		return "local"
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return fmt.Sprintf("Access(%d)", int(a))
}

// Footprint is what a step declares about itself before it runs: the shared
// object it touches (a System-defined number), how, and whether it may block.
// Two steps of different threads are independent when their objects differ
// or both only read.
//
// Besides its object, a step may belong to a Group of threads whose
// progress another thread watches (a barrier manager polling a block): a
// member's step may end or block its thread, which a watcher sees; members'
// steps commute with each other on that account, but not with a watcher's.
type Footprint struct {
	Object   int
	Access   Access
	MayBlock bool
	// Group (0: none) and Watches: the step is a member's (Watches false)
	// or a watcher's (Watches true) step of the group.
	Group   int
	Watches bool
}

// Dependent reports whether two steps' order can matter.
func (f Footprint) Dependent(g Footprint) bool {
	if f.Group != 0 && f.Group == g.Group && (f.Watches || g.Watches) {
		return true
	}
	if f.Access == Local || g.Access == Local || f.Object != g.Object {
		return false
	}
	return f.Access == Write || g.Access == Write
}

// Failure is a violated property, found by a step, at the end of an
// execution, or by the scheduler itself (deadlock).
type Failure struct {
	Kind    string   // a stable name, for example "deadlock"
	Message string   // one line for a person
	Thread  ThreadID // the thread whose step failed, or -1
}

// KindDeadlock is the Failure kind the scheduler reports when no thread can
// move but not all are done.
const KindDeadlock = "deadlock"

// System is a deterministic multi-threaded state machine.
type System interface {
	// NumThreads is fixed for the life of the system.
	NumThreads() int
	// Status of thread t's next step.
	Status(t ThreadID) Status
	// Footprint of thread t's next step; only called when t is not Done.
	Footprint(t ThreadID) Footprint
	// Step executes thread t's next step; t must be Runnable. It returns a
	// Failure when the step violates a property.
	Step(t ThreadID) *Failure
	// Final is called once every thread is Done and checks end-state
	// properties.
	Final() *Failure
	// Clone returns an independent copy of the whole state.
	Clone() System
	// AppendKey appends a canonical encoding of the state to b.
	AppendKey(b []byte) []byte
}

// Copier is implemented by systems that can overwrite their own state with
// another state of the same system without allocating. Searches use it to
// recycle states they are done with; systems without it are cloned.
type Copier interface {
	CopyFrom(src System)
}

// KeyViewer is implemented by systems whose canonical key can be read in
// place: KeyView returns bytes equal to AppendKey(nil), valid until the
// system changes. Searches use it to skip a copy per step.
type KeyViewer interface {
	KeyView() []byte
}

// Compact is implemented by systems with an exact key shorter than
// AppendKey's: AppendCompactKey gives two states equal keys exactly when
// AppendKey does. The exact stateful searches store it in their visited
// sets instead (fewer bytes to hash, compare and keep).
type Compact interface {
	AppendCompactKey(b []byte) []byte
}

// CompactWorder is implemented by Compact systems that can give their
// compact key packed in a word, as WordKey packs it, without writing its
// bytes: CompactWord returns WordKey(AppendCompactKey(nil)). The exact
// depth-first searches use it for every state whose key is a word key.
type CompactWorder interface {
	Compact
	CompactWord() (uint64, bool)
}

// WordPeeker is implemented by CompactWorders that can tell the word key
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
type WordPeeker interface {
	CompactWorder
	PeekWord(t ThreadID) (word uint64, note PeekNote, ok bool)
	TakePeeked(parent System, t ThreadID, note PeekNote)
}

// PeekAgainer is a WordPeeker that can also peek two steps of one thread
// ahead: PeekAgain(t, note) is what PeekWord(t) would say of the state
// TakePeeked(s, t, note) would make, where note is what s's PeekWord(t)
// noted.
type PeekAgainer interface {
	WordPeeker
	PeekAgain(t ThreadID, note PeekNote) (word uint64, again PeekNote, ok bool)
}

// PeekNote is what a WordPeeker notes of a step it peeked at, for its
// TakePeeked; a search only hands it back. It is a struct, not an array,
// so that Go passes it in registers (its register ABI does not pass
// arrays of more than one element so).
type PeekNote struct{ A, B uint64 }

// keyOf is s's exact key: its compact key where s offers one, else a view
// where s offers one, else appended to buf.
func keyOf(s System, buf []byte) []byte {
	if c, ok := s.(Compact); ok {
		return c.AppendCompactKey(buf[:0])
	}
	if kv, ok := s.(KeyViewer); ok {
		return kv.KeyView()
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

// deadlock builds the scheduler's own failure.
func deadlock(s System) *Failure {
	blocked := 0
	for t := range s.NumThreads() {
		if s.Status(ThreadID(t)) == Blocked {
			blocked++
		}
	}
	return &Failure{Kind: KindDeadlock, Thread: -1,
		Message: fmt.Sprintf("no thread can move: %d blocked, none runnable", blocked)}
}
