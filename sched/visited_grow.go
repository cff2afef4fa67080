package sched

// The visited set's growth: a user that finds the table too full pauses
// the others, and all of them rehash it into a larger one (grow, rehash);
// when the search is ending or out of memory, a grow is given up
// (abandon, refuse).

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

// pause stops the calling user until a grow is over, helping to rehash
// while it waits.
func (s *visitedSet) pause() {
	s.mu.Lock()
	s.paused.Add(1)
	s.cond.Broadcast()
	var helped *rehash
	for s.growing.Load() {
		if j := s.job.Load(); j != nil && j != helped {
			helped = j
			s.mu.Unlock()
			j.work()
			s.mu.Lock()
			s.cond.Broadcast() // the grower may be waiting for the last part
			continue
		}
		s.await(func() bool {
			j := s.job.Load()
			return !s.growing.Load() || j != nil && j != helped
		})
	}
	s.paused.Add(-1)
	s.mu.Unlock()
}

// await returns once ready holds, with s.mu held, as on entry. ready
// reads only atomic fields, so the caller may spin on it without s.mu:
// await does so for up to spinFor, then sleeps on s.cond.
//
// The waits of a grow are short (a user reaching its next add, a part of
// the rehash), and sleeping through one costs a wake-up (a goroutine that
// parks lets its core go idle, and waking it again takes tens of
// microseconds), so await spins first. Tuned with BenchmarkParallelMerged4
// at two workers: a paused user waited a median 0.7 ms a search spinning,
// about as long as the grows take, against 1.3 ms sleeping, and the
// search ran 2 to 6% faster; see docs/performance.md.
func (s *visitedSet) await(ready func() bool) {
	if ready() {
		return
	}
	if !debug.noSpin {
		s.mu.Unlock()
		start := time.Now()
		for i := 0; !ready(); i++ {
			if i%64 == 63 && time.Since(start) > spinFor {
				break
			}
			runtime.Gosched()
		}
		s.mu.Lock()
	}
	for !ready() {
		s.cond.Wait()
	}
}

// spinFor is how long await spins before it sleeps (debug.noSpin: not at
// all).
const spinFor = 2 * time.Millisecond

// rehash is one grow's copying of the old table into the new, in parts
// that the grower and the paused users claim in turn.
type rehash struct {
	set      *visitedSet
	old, new *visitedTable
	next     atomic.Int64 // the next part to claim
	finished atomic.Int64 // parts done
	parts    int64
	// claimed: how many parts are claimed in all, parts unless the rehash
	// was cut (see abandon); only a grow, not a widen, may be cut (mayCut).
	claimed atomic.Int64
	mayCut  bool
}

// rehashPart is how many old slots one claim copies.
const rehashPart = 1 << 14

// work copies parts until none is left to claim, and says how many it
// copied.
func (j *rehash) work() (parts int64) {
	for ; ; parts++ {
		if j.mayCut && j.set.abandon(j.old) {
			j.cut()
			return parts
		}
		p := j.next.Add(1) - 1
		if p >= j.parts {
			return parts
		}
		lo := int(p) * rehashPart
		hi := min(lo+rehashPart, j.old.len())
		switch {
		case j.old.slots != nil:
			j.slotsToSlots(lo, hi)
		case j.new.words != nil:
			j.wordsToWords(lo, hi)
		default:
			j.wordsToSlots(lo, hi)
		}
		j.finished.Add(1)
	}
}

// cut ends the claims: no part is claimed after it, and claimed says how
// many were.
func (j *rehash) cut() {
	for {
		n := j.next.Load()
		if n >= j.parts {
			return // every part is claimed already
		}
		if j.next.CompareAndSwap(n, j.parts) {
			j.claimed.Store(n)
			return
		}
	}
}

// The old keys are distinct, so each copy claims the first free entry of
// its probe sequence.

func (j *rehash) slotsToSlots(lo, hi int) {
	for i := lo; i < hi; i++ {
		old := &j.old.slots[i]
		if n := old.n.Load(); n != 0 {
			ns := j.new.claim(j.set.hash(old, n))
			ns.inline = old.inline
			ns.n.Store(n)
		}
	}
}

func (j *rehash) wordsToWords(lo, hi int) {
	mask := uint64(len(j.new.words) - 1)
	for i := lo; i < hi; i++ {
		x := j.old.words[i].Load()
		if x == 0 {
			continue
		}
		for k := j.set.hashWord(x) & mask; !j.new.words[k].CompareAndSwap(0, x); k = (k + 1) & mask {
		}
	}
}

func (j *rehash) wordsToSlots(lo, hi int) {
	var buf [8]byte
	for i := lo; i < hi; i++ {
		x := j.old.words[i].Load()
		if x == 0 {
			continue
		}
		key := unpackWord(x, &buf)
		ns := j.new.claim(j.set.hashWord(x))
		copy(ns.inline[:], key)
		ns.n.Store(uint32(len(key)) + 1)
	}
}

// claim marks busy the first free slot of the probe sequence from h, in a
// table of slots, and returns it.
func (t *visitedTable) claim(h uint64) *visitedSlot {
	mask := uint64(len(t.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		if ns := &t.slots[k]; ns.n.Load() == 0 && ns.n.CompareAndSwap(0, busy) {
			return ns
		}
	}
}

// grow replaces t by a larger table (see growth), or, to widen a table of
// words, by a table of slots as large, once every other user has paused;
// the paused users help copy. If another user is growing already, the
// caller pauses instead.
//
// A larger table is made and its pages touched (prepare) before the
// others are asked to pause, while they go on adding to t; only the
// rehash stops them: fresh pages cost microseconds each, and one
// goroutine touches them (see prepare), so a worker that waited for it
// would sit parked. Tuned with BenchmarkParallelMerged4 at two workers:
// the time stopped for grows fell from a median of 1.5 ms a search to
// 1.1 ms; see docs/performance.md. While
// t's next table is prepared, a user that asks to grow t goes on adding
// to it, unless t holds t.hard keys, when it waits for the grow. A widen
// cannot wait for a table of words: it prepares its own once the others
// are paused, as before.
//
// When the search is ending (abandon), a grow that t has room to do
// without is skipped, or given up while it is prepared or rehashed: the
// grow of a gigabyte's table took seconds, and the search ended after.
// A widen is never given up: its key needs the slots.
func (s *visitedSet) grow(t *visitedTable, widen bool) {
	s.mu.Lock()
	if s.tab.Load() != t {
		s.mu.Unlock() // grown meanwhile
		return
	}
	var g *visitedTable
	if !widen && !s.growing.Load() {
		if s.abandon(t) || s.refuse(t) {
			s.mu.Unlock() // the search is ending: no grow
			return
		}
		if s.preparing.Load() {
			if s.inserted.Load() <= t.hard {
				s.mu.Unlock() // go on adding to t while the other prepares
				return
			}
			if waitHookForTest != nil {
				waitHookForTest()
			}
			// t is too full to go on: wait for the grow
			s.await(func() bool { return !s.preparing.Load() })
			s.mu.Unlock()
			if s.growing.Load() {
				s.pause()
			}
			return
		}
		s.preparing.Store(true)
		s.mu.Unlock()
		g = s.prepare(s.newTable(growth(t)*t.len(), t.words != nil), t)
		s.mu.Lock()
		s.preparing.Store(false)
		s.cond.Broadcast() // for users waiting on a full t
		if g == nil {
			s.mu.Unlock() // abandoned: the search is ending
			return
		}
		if s.growing.Load() {
			// a widen started meanwhile, and waits for this user to
			// pause: g is not the next table (t stays until the pause,
			// since a grow needs every other user paused)
			s.mu.Unlock()
			s.release(g)
			s.pause()
			return
		}
	}
	if !s.growing.CompareAndSwap(false, true) {
		s.mu.Unlock()
		s.pause()
		return
	}
	s.await(func() bool { return s.paused.Load() >= s.users.Load()-1 })
	if g == nil {
		g = s.prepare(s.newTable(t.len(), false), nil)
	}
	j := &rehash{set: s, old: t, new: g, mayCut: !widen}
	j.parts = int64((t.len() + rehashPart - 1) / rehashPart)
	j.claimed.Store(j.parts)
	s.job.Store(j)
	s.cond.Broadcast()
	s.mu.Unlock()
	j.work()
	s.mu.Lock()
	s.await(func() bool { return j.finished.Load() >= j.claimed.Load() })
	// Every part claimed is copied, so nobody reads either table but
	// through s.tab any more.
	if j.claimed.Load() < j.parts {
		s.release(g) // cut: the search is ending, and t stays
	} else {
		s.release(t)
		s.tab.Store(j.new)
	}
	s.job.Store(nil)
	s.growing.Store(false)
	s.cond.Broadcast()
	s.mu.Unlock()
}

// prepare touches every page of g, a new table, and returns it. One
// goroutine touches them all: on some virtual machines two threads
// faulting fresh pages in at once are much slower than one. When old is
// set (the table g is to replace), prepare gives up if the search is
// ending (abandon): it releases g and returns nil.
func (s *visitedSet) prepare(g *visitedTable, old *visitedTable) *visitedTable {
	if prepareHookForTest != nil {
		prepareHookForTest(g)
	}
	base, size := unsafe.Pointer(unsafe.SliceData(g.words)), g.bytes()
	if g.words == nil {
		base = unsafe.Pointer(unsafe.SliceData(g.slots))
	}
	for off := int64(0); off < size; off += 4096 {
		if off%abandonEvery == 0 && off > 0 && old != nil && s.abandon(old) {
			s.release(g)
			return nil
		}
		*(*byte)(unsafe.Add(base, off)) = 0
	}
	return g
}

// abandonEvery is how many bytes of a table prepare touches between two
// questions to abandon: 2 MiB, a few milliseconds of page faults, so a
// cancelled search stops soon after Cancel says so.
const abandonEvery = 2 << 20

// abandon reports whether the search is ending (Limits.Cancel) and t, the
// table now, has room for what its users add before they stop: then a
// grow of t is skipped, or given up as it is prepared or rehashed. Once
// Cancel says so, the search's next poll of Limits.Stop says so too, so
// each user adds at most PollEvery keys more; abandon asks for room for
// twice that, below fifteen sixteenths of t, so that t never fills. A
// grow of a large table takes seconds (a gigabyte's pages, then its
// keys), and a -timeout or Ctrl-C waited for all of it.
func (s *visitedSet) abandon(t *visitedTable) bool {
	return s.cancel != nil && s.roomy(t) && s.cancel()
}

// roomy reports whether t has room for what its users add before they
// stop, once the search is ending (see abandon).
func (s *visitedSet) roomy(t *visitedTable) bool {
	room := int64(t.len())*15/16 - s.inserted.Load()
	return room >= 2*PollEvery*int64(s.users.Load()+1)
}

// refuse reports whether Limits.Afford refuses t's next table, which t
// has room to do without (roomy): the search is then ending (Afford's
// false makes Cancel and Stop true), and t holds what its users add
// before they stop. A table with no such room (the small ones) grows
// whatever Afford would say. The old table and the next are both held
// while the keys move, and Afford is asked for the next one's bytes
// with the old one held already: the most the set holds at once.
func (s *visitedSet) refuse(t *visitedTable) bool {
	return s.afford != nil && s.roomy(t) && !s.afford(int64(growth(t))*t.bytes())
}

// prepareHookForTest, when set, runs as each table is prepared, and
// waitHookForTest as a user waits for a table that is being prepared;
// only tests set them.
var (
	prepareHookForTest func(g *visitedTable)
	waitHookForTest    func()
)

// release gives back t's memory; nothing may read t after.
func (s *visitedSet) release(t *visitedTable) {
	releaseSlab(s.slabs, t.slots)
	releaseSlab(s.slabs, t.words)
}

// growth is how many times larger than t the next table is: 4 while
// that makes a table of at most quadGrowthBytes, then 2.
func growth(t *visitedTable) int {
	if 4*t.bytes() <= quadGrowthBytes {
		return 4
	}
	return 2
}

// quadGrowthBytes is the size up to which tables grow fourfold: 32 MiB.
// Each grow rehashes every key and touches a fresh table's every page,
// and fewer of them cost less than the larger tables do. Tuned with
// BenchmarkExhaustiveMerged5 (2.9M states: its table of words grows from
// 8 MiB to 32 MiB at once, not through 16 MiB), 5.5% faster in 12 of 14
// rounds of scripts/ab.sh; BenchmarkExhaustiveMerged4's tables are the
// same either way; see docs/performance.md. A search whose keys
// just overflow a table gets one up to 4 times their need, not 2; past
// 32 MiB, where that would cost real memory, tables double.
const quadGrowthBytes = 32 << 20
