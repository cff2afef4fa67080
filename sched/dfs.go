package sched

import (
	"fmt"
	"sync/atomic"
)

// DFS is an exhaustive depth-first search with a visited set of states: each
// distinct state (by its exact key: AppendKey, or AppendCompactKey where the
// system is Compact) is expanded once. At every state it tries
// the thread that ran last first, so the first counterexample found tends to
// have few preemptions.
type DFS struct{}

// Name implements Strategy.
func (DFS) Name() string { return "dfs" }

// Exhaustive implements Strategy.
func (DFS) Exhaustive() bool { return true }

// dfsFrame is one state of a depth-first stack and its children. When the
// frame is pushed, the state's runnable threads are ordered, and each
// one's step is peeked at (WordPeeker), its word told without the step,
// which is then made from the frame's state when its turn comes and its
// word is new; the children are then tried in order, each one's key
// looked up in the visited set only when its turn comes. Peeking them
// together lets the lookups' cache misses overlap (the slots are
// prefetched), and changes nothing else: the order of the visited set's
// inserts, of the counts and of the failures is that of stepping each
// child in its turn.
//
// A child that cannot be peeked at (the system does not peek, or does
// not know that step) is made only when its turn comes, in the frame's
// one state for such children (made), and stepped there. Making them all
// at the push, as the search once did, kept a state per runnable thread
// on every frame: with 64 threads of 3 blocks under the states search a
// stack of a few thousand frames held 2.5 GB, and the clones between two
// polls of Limits.Stop took seconds, so -timeout 3s ended the search
// after 8.6 s (merged, 2 workers).
type dfsFrame struct {
	via ThreadID // the thread whose step led here
	// viaFirst: via can run on, so preferring put it first (order[0],
	// unless a persistent set left it out), and every other child is a
	// preemption
	viaFirst bool
	order    []ThreadID
	next     int
	// preempts: the preemptions on the path to the state.
	preempts int
	// kids[i] is the child by order[i]'s step: peeked, or, if not,
	// to be made in made when its turn comes. The states and buffers
	// are the frame's, reused from push to push.
	kids []dfsKid
	made dfsKid
	// state is the frame's state, which the children are made from
	state System
}

// dfsKid is a child state of a frame and its key.
type dfsKid struct {
	// s is the child, or, when peeked, a state to make it in when its
	// turn comes (from the frame's state, by the step PeekWord saw, which
	// it noted in note); it is not used when neither peeked nor made
	// (the child is made in its frame's made then)
	s      System
	peeked bool
	note   PeekNote
	// s as a Copier, a RunnableLister and, when the search takes keys as
	// words, as a Compact and a WordPeeker; nil if it is not one
	copier Copier
	lister RunnableLister
	worder Compact
	peeker WordPeeker
	// the key: a word key packed in word (isWord), or key; hash is its
	// hashKey
	isWord bool
	word   uint64
	key    []byte
	hash   uint64
}

// Run implements Strategy: statefulDFS keyed by the exact state.
func (DFS) Run(init System, lim Limits) Result { return statefulDFS(init, lim, keyOf, true) }

// Terminal checks a state with no runnable thread, as every search does:
// a deadlock unless every thread is done, else the system's Final.
func Terminal(s System) *Failure {
	for t := range s.NumThreads() {
		if s.Status(ThreadID(t)) != Done {
			return terminal(s, false)
		}
	}
	return terminal(s, true)
}

// terminal checks a state with no runnable thread.
func terminal(s System, allDone bool) *Failure {
	if !allDone {
		return deadlock(s)
	}
	return s.Final()
}

// depthFirst is the search loop of statefulDFS and of each Parallel
// worker: a depth-first search from one root state that stores every state
// it reaches in set (keyed by key), tries the thread that ran last first,
// and stops at the first failure, when poll gives a reason to, or at the
// step budget. Its stack, states, buffers and counts last from one search
// to the next.
type depthFirst struct {
	set *setUser
	key func(System, []byte) []byte
	// words: key is keyOf and the states are Compact, so children
	// whose keys are word keys are taken as words
	words    bool
	maxDepth int
	// maxExecutions, when positive, cuts the search once it has counted
	// that many executions (Limits.MaxExecutions, exactly); with
	// sharedExecutions (the parallel search's workers), once the run has:
	// each worker adds its executions there as they end, and synced is how
	// many of its own it has added
	maxExecutions    int64
	sharedExecutions *atomic.Int64
	synced           int64
	// polls counts the steps since poll was last asked; checkAt is the
	// count at which checkpoint runs next
	polls, checkAt int
	// early is the peek at the next step of the thread that made the
	// state push is about to be given, made before that state's
	// runnable threads were listed (see searchFrom), for push to use
	early earlyPeek
	// again is the peek at the step after the first child's of the
	// state push was last given, by the same thread (againFrom), for
	// searchFrom to use as its early peek if that child is new. The loop
	// takes that child (i == 0) right after the push, and only then;
	// every push clears it first.
	again earlyPeek
	stats Stats
	stack []dfsFrame
	buf   []ThreadID
	// reduce, when set, cuts each state's runnable threads down to a
	// persistent set's (POR on several workers)
	reduce *porReducer
}

// dfsEnd is how a depthFirst search ended: cut, when set, says why it stopped
// early; failure, when set, came after path (the threads of the steps from
// the root; the last is the failing step, or the last before a failing end
// state), which had preempts preemptions in all.
type dfsEnd struct {
	cut      string
	failure  *Failure
	path     []ThreadID
	preempts int
}

// push makes s, reached by via's step with preempts preemptions on its
// path, the top of the stack, its runnable threads (d.buf) ordered and
// peeked at (see dfsFrame). peeker is s as a WordPeeker when the search
// takes keys as words (d.words) and s is one, else nil: a kid's, which
// was asserted when the kid was made, not once more per state.
func (d *depthFirst) push(s System, peeker WordPeeker, via ThreadID, preempts int) {
	if len(d.stack) < cap(d.stack) {
		d.stack = d.stack[:len(d.stack)+1]
	} else {
		d.stack = append(d.stack, dfsFrame{})
	}
	f := &d.stack[len(d.stack)-1]
	f.via, f.next, f.preempts = via, 0, preempts
	f.order = preferring(f.order[:0], d.buf, via)
	f.viaFirst = len(f.order) > 0 && f.order[0] == via
	if d.reduce != nil {
		// via stays first if kept; if not, every child is a preemption
		// (searchFrom counts one for each child but via's)
		f.order = d.reduce.keep(s, f.order)
		d.polls += len(d.buf) // the closure's cost grows with the threads
	}
	for len(f.kids) < len(f.order) {
		f.kids = append(f.kids, dfsKid{})
	}
	f.state = s
	first := 0
	if e := &d.early; e.ok && peeker != nil && len(f.order) > 0 && e.t == f.order[0] {
		// peeked and prefetched already
		kid := &f.kids[0]
		kid.word, kid.note, kid.peeked = e.word, e.note, true
		kid.isWord, kid.hash = true, e.hash
		first = 1
	}
	d.early.ok, d.again.ok = false, false
	pf := d.set.prefetcher() // push adds nothing, so the table stays
	for i := first; i < len(f.order); i++ {
		t := f.order[i]
		kid := &f.kids[i]
		kid.peeked = false // made in its turn, unless peeked at
		if peeker != nil {
			if kid.word, kid.note, kid.peeked = peeker.PeekWord(t); kid.peeked {
				kid.isWord = true
				kid.hash = d.set.set.hashWord(kid.word)
				pf.fetch(kid.hash)
			}
		}
	}
	if pf.early && peeker != nil && len(f.order) > 0 && f.kids[0].peeked { // in large tables only
		d.againFrom(peeker, f.order[0], f.kids[0].note, pf)
	}
}

// checkpoint asks poll every PollEvery steps and cuts the search once
// it has counted maxExecutions executions, as if it checked both before
// every step; it says why it cuts, if it does. A step counts at most one
// execution, so with maxExecutions it need only check again after as
// many steps as executions are left (checkAt), and with no limit, at the
// next poll. Workers that share the limit check after every step, each
// adding its executions to the shared count as they end: the run then
// counts at most one execution per worker past the limit (the cost, an
// atomic add per step, is paid only under -max-executions).
func (d *depthFirst) checkpoint(poll func() string) string {
	if d.polls >= PollEvery {
		d.polls = 0
		if cut := poll(); cut != "" {
			return cut
		}
	}
	d.checkAt = PollEvery
	if d.maxExecutions > 0 && d.sharedExecutions != nil {
		done := d.sharedExecutions.Load()
		if n := d.stats.Executions - d.synced; n != 0 {
			done = d.sharedExecutions.Add(n)
			d.synced = d.stats.Executions
		}
		if done >= d.maxExecutions {
			return maxExecutionsCut(d.maxExecutions)
		}
		d.checkAt = d.polls + 1
	} else if d.maxExecutions > 0 {
		left := d.maxExecutions - d.stats.Executions
		if left <= 0 {
			return maxExecutionsCut(d.maxExecutions)
		}
		d.checkAt = int(min(int64(PollEvery), int64(d.polls)+left))
	}
	return ""
}

// stepKid makes kid.s the child of s by t's step, and its key; it
// returns the step's failure, if any.
func (d *depthFirst) stepKid(kid *dfsKid, s System, t ThreadID) *Failure {
	d.makeKid(kid, s)
	if fail := kid.s.Step(t); fail != nil {
		return fail
	}
	kid.isWord = false
	if kid.worder != nil {
		kid.word, kid.isWord = kid.worder.CompactWord()
	}
	if kid.isWord {
		kid.hash = d.set.set.hashWord(kid.word)
	} else {
		kid.key = d.key(kid.s, kid.key)
		kid.hash = d.set.set.hashKey(kid.key)
	}
	return nil
}

// keyBytesPerStep is how many bytes of a state's key count as one step
// more towards the next poll of Limits.Stop (see Limits.Stop): a state
// takes time to copy, step and key in proportion to its key, and a
// search of large states must still poll every few milliseconds. Merged
// with 64 threads in 16 blocks has keys of 1 KiB, and a child took 330
// µs to make: 4,096 of them between two polls, 1.4 s, made -timeout late
// by as much; with this, a poll comes after 63 of them. Keys of a few
// words (a few threads) count one step, or two.
const keyBytesPerStep = 16

// makeKid makes kid.s a copy of s.
func (d *depthFirst) makeKid(kid *dfsKid, s System) {
	if kid.copier != nil {
		kid.copier.CopyFrom(s)
	} else {
		d.cloneKid(kid, s)
	}
}

// cloneKid makes kid.s a new copy of s.
func (d *depthFirst) cloneKid(kid *dfsKid, s System) {
	kid.s = s.Clone()
	kid.copier, _ = kid.s.(Copier)
	kid.lister, _ = kid.s.(RunnableLister)
	if d.words {
		kid.worder = kid.s.(Compact)
		kid.peeker, _ = kid.s.(WordPeeker)
	}
}

// useWords sets d.words for a search keyed by keyOf (exact) or not, whose
// states are like init.
func (d *depthFirst) useWords(init System, exact bool) {
	_, ok := init.(Compact)
	d.words = exact && ok
}

// searchFrom searches from root, at least one of whose threads can run; base
// steps led to it, with preempts preemptions, the last of them by via (-1
// for none). poll is asked every PollEvery steps, and stops the search
// when it gives a reason.
func (d *depthFirst) searchFrom(root System, via ThreadID, base, preempts int, poll func() string) dfsEnd {
	d.buf, _ = runnable(root, d.buf)
	d.stack = d.stack[:0]
	d.early.ok = false
	var peeker WordPeeker
	if d.words {
		peeker, _ = root.(WordPeeker)
	}
	d.push(root, peeker, via, preempts)
	failed := func(f *Failure, last ThreadID, pre int) dfsEnd {
		path := make([]ThreadID, 0, len(d.stack))
		for _, f := range d.stack[1:] {
			path = append(path, f.via)
		}
		return dfsEnd{failure: f, path: append(path, last), preempts: pre}
	}
	for len(d.stack) > 0 {
		if d.polls++; d.polls >= d.checkAt {
			if cut := d.checkpoint(poll); cut != "" {
				return dfsEnd{cut: cut}
			}
		}
		top := &d.stack[len(d.stack)-1]
		if top.next >= len(top.order) {
			d.stack = d.stack[:len(d.stack)-1]
			continue
		}
		i := top.next
		t := top.order[i]
		top.next++
		pre := top.preempts
		if top.viaFirst && t != top.via {
			pre++
		}
		d.stats.Steps++
		depth := base + len(d.stack)
		d.stats.Depth = max(d.stats.Depth, depth)
		kid := &top.kids[i]
		if !kid.peeked {
			kid = &top.made
			if f := d.stepKid(kid, top.state, t); f != nil {
				return failed(f, t, pre)
			}
			if !kid.isWord { // a word key counts one step, as a peeked child
				d.polls += len(kid.key) / keyBytesPerStep
			}
		}
		next := kid.s
		var fresh bool
		if kid.isWord {
			fresh = d.set.addWord(kid.word, kid.hash)
		} else {
			fresh = d.set.addHashed(kid.key, kid.hash)
		}
		if !fresh {
			d.stats.Matched++
			d.stats.execution(pre)
			continue
		}
		d.stats.States++
		if kid.peeked {
			d.takeKid(kid, top.state, t)
			next = kid.s
		}
		if i == 0 && d.again.ok {
			d.early = d.again
		} else if kid.peeker != nil && d.set.set.tab.Load().peekEarly {
			d.peekEarly(kid, t)
		} else {
			d.early.ok = false // none for push, nor a stale one
		}
		var allDone bool
		if d.buf, allDone = listRunnable(next, kid.lister, d.buf); len(d.buf) == 0 {
			if f := terminal(next, allDone); f != nil {
				return failed(f, t, pre)
			}
			d.stats.execution(pre)
			continue
		}
		if depth >= d.maxDepth {
			return dfsEnd{cut: fmt.Sprintf("an execution reached the step budget of %d", d.maxDepth)}
		}
		d.push(next, kid.peeker, t, pre)
	}
	return dfsEnd{}
}
