package model

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"swapcheck/sched"
)

// Symmetry between GPU threads.
//
// The threads of one block of one launch want the same fake module and are
// polled together, and run the kernel compiled for their index
// (Program.compileFor), which is one code for all of them unless the kernel
// branches on the thread index. Threads with the same code are
// interchangeable: permuting them (their slot blocks, and the lock owners
// that name them) maps every state to one with the same future, permuted.
// Threads whose codes differ are never merged: each frame's code is part
// of the thread's live part, so the key sorts them apart, and a permutation
// that equates two reachable states maps each unfinished thread to one
// with its code (the host starts a block's threads in index order, so the
// ones not yet started are a suffix, mapped within each code). Threads of
// different blocks or launches are not interchangeable (the host starts and
// polls their blocks at different times; each launch wants its own fake),
// and the host is alone in its group. Three places in the model name a
// thread, and each is made symmetric:
//
//   - the host's t.start() starts "the block's lowest-indexed thread not
//     yet started" (execStmt), which in every reachable state is the thread
//     the statement was written for;
//   - a lock owner is thread+1: AppendCanonicalKey renames it along with
//     the threads;
//   - the poll re-raises the exception of a died thread chosen by its
//     exception first (firstDied), not by its number alone.
//
// AppendCanonicalKey encodes the state with each group's threads sorted, so
// states that differ by such a permutation get one key.

// brokenSymmetry names a reduction broken on purpose, for the tests that
// check the soundness tests catch one (debug.brokenSymmetry); the zero
// value is the sound one.
type brokenSymmetry uint8

const (
	symmetrySound brokenSymmetry = iota
	// brokenOneGroup sorts all GPU threads as one group, as if threads of
	// different blocks and launches were interchangeable.
	brokenOneGroup
	// brokenTopFrameOnly compares and encodes each thread by its thread
	// fields and top frame only, forgetting the frames of its callers.
	brokenTopFrameOnly
	// brokenNoRename sorts the threads but leaves lock owners naming the
	// threads' old positions.
	brokenNoRename
	// brokenNoOwners leaves the lock owners out of the key.
	brokenNoOwners
	// brokenBranchBlind keys each frame by the function it runs, not by
	// the code compiled for its thread's index: it forgets which arms of
	// the branches the thread takes, as if threads of one block were
	// interchangeable whatever their index.
	brokenBranchBlind
)

// canonScratch is what AppendCanonicalKey reuses between calls, so that
// the hot path allocates nothing. It belongs to one World. It also keeps
// the last call's work: each thread's part number stays fresh until a step
// may have changed the thread (Step unsets it; CopyFrom copies the scratch
// with the vector), so a search that copies a state and steps one thread
// looks up one part; and sorting starts from the last canonical order.
// Neither changes a key, only its cost (debug.verifyCanon checks it).
type canonScratch struct {
	mode  brokenSymmetry // the mode order and part were computed in
	order []int          // threads in canonical order, group by group
	pos   []slot
	// part[t] is the number of thread t's live part in the program's
	// table, if fresh[t].
	part         []uint32
	fresh        []bool
	finishedLive [2]slot
	withMem      []slot // a live part with the thread's memory slots after it
	copied       []slot // a live part with its dead tmps zeroed
	topOnly      []slot // brokenTopFrameOnly's live part
	blind        []slot // brokenBranchBlind's live part
	// firstHeld[t] is the lowest lock thread t holds, 0 when none: the
	// tie-break between threads with equal live parts.
	firstHeld []slot
	globals   []slot // the globals with their lock owners renamed
}

// AppendCanonicalKey appends the key of w's orbit under the symmetry
// between the threads of each block: two states get the same key exactly
// when one is the other with the threads of each block permuted (and, see
// below, dead slots ignored).
//
// The key is the state vector of the orbit's canonical member, with dead
// slots left out, in a compact form: the globals, registries and lock
// owners as their number in a table of those the program's worlds have
// met, then each thread's live part (below) as its number in a table of
// live parts (uvarints; as SPIN's COLLAPSE compression, each table is a
// bijection, so a number says as much as what it numbers). Each group's threads are sorted by their parts' numbers, which
// name no thread, and then by the locks they hold (only threads with equal
// parts need it: a lock has one owner, so two threads still tied hold no
// lock, and swapping them changes nothing). The numbers are given in the
// order parts are met, but once given never change, so the order is one
// fixed order of the parts' contents, and the key a function of the orbit.
// The lock owners are then renamed to the positions their threads sort to,
// which is the permutation acting on the whole state. Conversely the key
// decodes (through the table) into w permuted, so equal keys mean permuted
// states.
//
// Dead slots are ones no step reads before writing them, so states that
// differ only in them have equal futures: the frames above a thread's
// depth (push clears a frame before use), everything of a finished thread
// but its status and the exception it died with (the poll reads only
// those), and a frame's tmp except in the step right after the one that
// set it (see Ctx.Tmp: a thread would otherwise remember the count it
// incremented from, and threads that entered in another order would never
// match). A thread's live part is therefore its status and died exception
// when it has finished, and otherwise its thread fields and its frames up
// to its depth, each frame's tmp zeroed unless its tmpSet slot is 1.
//
// w's vector must change only through w's own methods (Step, CopyFrom),
// not through a handle from Share: w keeps each thread's part number until
// one of its steps may change it.
func (w *World) AppendCanonicalKey(b []byte) []byte {
	p, l := w.p, &w.p.lay
	c := w.canonicalOrder()
	owners := l.lockOwner + 1

	// The globals and registries, with the lock owners renamed, as their
	// number in the program's table of them.
	c.globals = append(c.globals[:0], w.s[:l.threads]...)
	for i, o := range c.globals[owners : owners+p.maxLocks] {
		switch {
		case o == 0 || debug.brokenSymmetry == brokenNoRename:
		case debug.brokenSymmetry == brokenNoOwners:
			o = 0
		default:
			o = c.pos[o-1] + 1
		}
		c.globals[owners+i] = o
	}
	b = binary.AppendUvarint(b, uint64(p.globals.number(c.globals)))
	// The threads' part numbers in their order, a run of equal ones as
	// one number (times two, plus one) and the run's length less one:
	// alike threads of a wide block cost a few bytes, not one each.
	for i := 0; i < len(c.order); {
		part := uint64(c.part[c.order[i]])
		j := i + 1
		for j < len(c.order) && uint64(c.part[c.order[j]]) == part {
			j++
		}
		if j-i == 1 {
			b = binary.AppendUvarint(b, part<<1)
		} else {
			b = binary.AppendUvarint(b, part<<1|1)
			b = binary.AppendUvarint(b, uint64(j-i-1))
		}
		i = j
	}
	return b
}

// canonicalOrder sorts w's threads into the canonical key's order (see
// AppendCanonicalKey): c.order, and each thread's position in it, c.pos.
func (w *World) canonicalOrder() *canonScratch {
	p := w.p
	c := w.canonParts()
	if debug.brokenSymmetry == brokenOneGroup {
		c.sortGroup(c.order[1:])
	} else {
		for _, members := range p.blockThreads {
			lo := members[0] // a block's threads are consecutive
			c.sortGroup(c.order[lo : lo+len(members)])
		}
	}
	for i, t := range c.order {
		c.pos[t] = slot(i)
	}
	return c
}

// canonParts numbers each thread's live part and finds the locks the
// threads hold (c.part, c.firstHeld): what the canonical order sorts by
// and what its ties are made of.
func (w *World) canonParts() *canonScratch {
	w.sync()
	p := w.p
	c := w.canonScratch()
	for t, fresh := range c.fresh {
		if !fresh {
			c.part[t], c.fresh[t] = p.liveParts.number(w.live(t, c)), true
		}
	}
	if debug.verifyCanon {
		for t := range c.part {
			if n := p.liveParts.number(w.live(t, c)); n != c.part[t] {
				panic(fmt.Sprintf("model: thread %d's live part is number %d, but the canonical key's scratch says %d: a change to the vector did not unset it", t, n, c.part[t]))
			}
		}
	}
	w.findFirstHeld(c)
	return c
}

// AppendCanonicalOrder appends w's threads in an order of the canonical
// key's kind (sched.CanonicalOrderer): the host and the groups in their
// order, each group's threads by the contents of their live parts, then
// by the locks they hold. It sorts by contents, not by the parts' numbers
// as the key does: the numbers are given in the order a search meets the
// parts, which differs between runs, and between workers' races. Threads
// it ties have equal live parts and hold no lock, so swapping them leaves
// the state as it is (but for dead slots, which no step reads).
func (w *World) AppendCanonicalOrder(buf []sched.ThreadID) []sched.ThreadID {
	c := w.canonicalOrder() // every part numbered, firstHeld found
	parts := w.p.liveParts
	start := len(buf)
	for t := range sched.ThreadID(w.p.NumThreads()) {
		buf = append(buf, t)
	}
	if debug.orderByNumber {
		for i, t := range c.order {
			buf[start+i] = sched.ThreadID(t)
		}
		return buf
	}
	for _, members := range w.p.blockThreads {
		lo := start + members[0] // a block's threads are consecutive
		slices.SortStableFunc(buf[lo:lo+len(members)], func(t, u sched.ThreadID) int {
			if pt, pu := c.part[t], c.part[u]; pt != pu { // a bijection: unequal runs
				return slices.Compare(parts.run(pt), parts.run(pu))
			}
			return cmp.Compare(c.firstHeld[t], c.firstHeld[u])
		})
	}
	return buf
}

// AppendCanonicalTies appends, for each thread of order (what
// AppendCanonicalOrder returned for w), whether it ties with the thread
// before it (sched.CanonicalTies): both of one block (of one launch:
// threadBlock numbers them across launches), with equal live
// parts, and holding no lock: swapping them leaves the state as it is.
func (w *World) AppendCanonicalTies(order []sched.ThreadID, buf []bool) []bool {
	c := w.canonParts() // no sort: order is sorted already
	for i, t := range order {
		tied := false
		if i > 0 {
			u := order[i-1]
			tied = !w.p.isHost(int(t)) && !w.p.isHost(int(u)) && w.p.threadBlock[t] == w.p.threadBlock[u] &&
				c.part[t] == c.part[u] && c.firstHeld[t] == 0 && c.firstHeld[u] == 0
		}
		buf = append(buf, tied)
	}
	return buf
}

// canonScratch returns w's scratch, sized for its program.
func (w *World) canonScratch() *canonScratch {
	n := w.p.NumThreads()
	c := w.cache.canon
	if c == nil || len(c.pos) != n {
		c = &canonScratch{
			order:     make([]int, n),
			pos:       make([]slot, n),
			part:      make([]uint32, n),
			fresh:     make([]bool, n),
			firstHeld: make([]slot, n),
		}
		for t := range n {
			c.order[t] = t
		}
		c.mode = debug.brokenSymmetry
		w.cache.canon = c
	}
	if c.mode != debug.brokenSymmetry {
		for t := range n {
			c.order[t] = t
		}
		clear(c.fresh)
		c.mode = debug.brokenSymmetry
	}
	return c
}

// copyCanon makes w's scratch src's, as CopyFrom makes w's vector src's.
func (w *World) copyCanon(src *World) {
	sc := src.cache.canon
	if sc == nil || sc.mode != debug.brokenSymmetry {
		if w.cache.canon != nil {
			clear(w.cache.canon.fresh)
		}
		return
	}
	c := w.canonScratch()
	copy(c.part, sc.part)
	copy(c.fresh, sc.fresh)
	copy(c.order, sc.order)
}

// live is thread t's slots that some later step may read (see
// AppendCanonicalKey): a view of the vector, or of c's scratch.
func (w *World) live(t int, c *canonScratch) []slot {
	v := w.liveFrames(t, c)
	if l := &w.p.lay; l.memSlots > 0 {
		// the atomics' results (memory.go), which the lost-update check
		// reads once every thread has ended
		base := w.thread(t)
		c.withMem = append(append(c.withMem[:0], v...), w.s[base+l.memBase:base+l.memBase+l.memSlots]...)
		return c.withMem
	}
	return v
}

// liveFrames is live's part of the thread's status and frames.
func (w *World) liveFrames(t int, c *canonScratch) []slot {
	base := w.thread(t)
	if w.s[base+tStatus] == finished {
		c.finishedLive = [2]slot{finished, w.s[base+tDied]}
		return c.finishedLive[:]
	}
	depth := int(w.s[base+tDepth])
	// a generator an interrupt left suspended sits above the depth (interrupt.go)
	depth = max(depth, int(w.s[base+tDeferred]))
	if debug.brokenSymmetry == brokenTopFrameOnly && depth > 1 {
		// Wrong on purpose: the top frame stands in for the bottom one,
		// and the frames in between are dropped.
		top := base + tFrames + (depth-1)*frameSize
		c.topOnly = append(append(c.topOnly[:0], w.s[base:base+tFrames]...), w.s[top:top+frameSize]...)
		return c.topOnly
	}
	v := w.s[base : base+tFrames+depth*frameSize]
	if debug.brokenSymmetry == brokenBranchBlind {
		// Wrong on purpose: every code of a function stands for it.
		v = append(c.blind[:0], v...)
		for f := tFrames; f < len(v); f += frameSize {
			v[f+fCode] = slot(w.p.sameFunction(int(v[f+fCode])))
		}
		c.blind = v
	}
	for f := tFrames; f < len(v); f += frameSize {
		if v[f+fTmpSet] == 0 && v[f+fTmp] != 0 {
			// A dead tmp (see Ctx.Tmp): zero it in a copy.
			v = append(c.copied[:0], v...)
			for f := tFrames; f < len(v); f += frameSize {
				if v[f+fTmpSet] == 0 {
					v[f+fTmp] = 0
				}
			}
			c.copied = v
			break
		}
	}
	return v
}

// sortGroup sorts a group's threads by part number, then by the locks they
// hold (see findFirstHeld): an insertion sort, which is quick on the nearly
// sorted order the last call left.
func (c *canonScratch) sortGroup(g []int) {
	for i := 1; i < len(g); i++ {
		for j := i; j > 0 && c.less(g[j], g[j-1]); j-- {
			g[j], g[j-1] = g[j-1], g[j]
		}
	}
}

func (c *canonScratch) less(t, u int) bool {
	if c.part[t] != c.part[u] {
		return c.part[t] < c.part[u]
	}
	return c.firstHeld[t] < c.firstHeld[u]
}

// findFirstHeld finds each thread's lowest held lock. Threads hold disjoint
// sets of locks, so ordering two threads by the sets they hold (the empty
// set first, then by lowest member) needs only that.
func (w *World) findFirstHeld(c *canonScratch) {
	clear(c.firstHeld)
	owners := w.s[w.p.lay.lockOwner+1:][:w.p.maxLocks]
	for i := len(owners) - 1; i >= 0; i-- {
		if o := owners[i]; o != 0 {
			c.firstHeld[o-1] = slot(i + 1) // lock refs count from 1
		}
	}
}

// slotBytes is s as bytes, in place.
func slotBytes(s []slot) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}
