package sched

// Peeks and prefetches of the depth-first searches (DFS, Parallel's
// workers): a WordPeeker tells a child's word key without making it, so
// a search looks it up (and prefetches its slot) first and makes only the
// new children; and, in tables larger than the caches, it peeks a step
// ahead of the state it is about to push, so that the prefetch has
// arrived when the lookup comes. None of it changes what a search
// reports: TestDFSStepsChildrenAsInTheirTurn compares it with a plain
// search.

// earlyPeekBytes is the size of visited table, as it is made, from which
// searchFrom peeks early (peekEarly): 8 MiB, so that tables that outgrow
// the caches get the early peeks and those that fit do not. Tuned with
// BenchmarkExhaustiveMerged5 (a 32 MiB table: 6 to 8% faster with early
// peeks) and BenchmarkExhaustiveMerged4 (2 MiB: 1.5% slower with them),
// run in turn by scripts/ab.sh on a machine with 1 MiB of L2 a core and
// 32 MiB of L3; see docs/performance.md. Tests can make every table peek
// early (debug.peekEarlyAlways).
const earlyPeekBytes int64 = 8 << 20

// earlyPeek is a peek made ahead of push at thread t that told word and
// note (hash is the word's), when ok.
type earlyPeek struct {
	ok   bool
	t    ThreadID
	word uint64
	note PeekNote
	hash uint64
}

// peekEarly peeks at thread t's next step from kid.s, a new state that t's
// step made, before its runnable threads are listed, and starts
// prefetching where the child's key would be looked up (see early). Most
// often t can run on, so push tries it first and looks its child up at
// once: a lookup that, in a visited set larger than the caches, waited
// for a prefetch made only a few peeks before it. If t cannot run, push
// ignores the peek. searchFrom peeks early only from tables of
// earlyPeekBytes and more (visitedTable.peekEarly): in smaller ones the
// lookups hit the caches, and the early peeks only cost time. Where the
// child is its parent's first, and the system can peek again, push
// made this peek already (againFrom), a state earlier.
func (d *depthFirst) peekEarly(kid *dfsKid, t ThreadID) {
	e := &d.early
	e.t = t
	if e.word, e.note, e.ok = kid.peeker.PeekWord(t); e.ok {
		e.hash = d.set.set.hashWord(e.word)
		d.set.prefetcher().fetch(e.hash)
	}
}

// againFrom peeks at t's step after its first step from the state push
// is given, which PeekWord(t) noted in note, and prefetches where its
// lookup would start (d.again). If that first step's child is new, and
// t can run on, it is the child's early peek (see peekEarly), made one
// state earlier: before the child's lookup rather than after it, and so
// long enough before its own lookup for the prefetch to arrive.
func (d *depthFirst) againFrom(peeker WordPeeker, t ThreadID, note PeekNote, pf prefetcher) {
	e := &d.again
	e.t = t
	if e.word, e.note, e.ok = peeker.PeekAgain(t, note); e.ok {
		e.hash = d.set.set.hashWord(e.word)
		pf.fetch(e.hash)
	}
}

// takeKid makes kid.s the child of s that kid peeked at, by t's step.
func (d *depthFirst) takeKid(kid *dfsKid, s System, t ThreadID) {
	if kid.peeker == nil {
		d.cloneKid(kid, s)
	}
	kid.peeker.TakePeeked(s, t, kid.note)
}
