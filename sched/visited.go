package sched

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// visitedSet is the set of states a stateful search has seen, keyed by
// their full encoding: a hash only finds the slot, the bytes decide, so a
// collision can never prune an unseen state. One goroutine or several use
// it, each through its own handle (join).
//
// A table starts as words: while every key is a word key (one to eight
// bytes, none of them zero, as the compact keys of small searches are), a
// key is stored packed in a word of its own, inserted with one
// compare-and-swap, hashed with a few multiplications, and a table of a
// million keys takes 16 MiB. The first key that is not a word key widens
// the table into slots. A slot is half a cache line and holds its key
// when the key is short (a compact or canonical key usually is: 5 to 20
// bytes), so a lookup in a set too big for the caches costs one miss, not
// one for the slot and one for the key. Longer keys live in chunks (no
// allocation per state, no copying as the set grows, nothing for the
// collector to scan) and the slot points there. Neither keeps hashes:
// growing hashes the keys again. A key's hash does not depend on the kind
// of table, so a search may hash a key before a widening and look it up
// after.
//
// Lookups take no lock: a lock's word would move between the cores on
// nearly every step, and two workers would then run slower than one. A
// goroutine inserts by claiming an empty slot with a compare-and-swap of
// its length word to busy, writing the key, then publishing the length; a
// reader that meets a busy slot waits for it. Growing needs the table to
// itself: the goroutine that finds it too full raises a flag, waits until
// every other user has stopped at its next add, and shares the rehashing
// out with them. Those waits spin before they sleep (await). Users are
// counted (join, leave) so that a user that has finished is not waited for.
type visitedSet struct {
	seed maphash.Seed
	// wordSeed is mixed into the hashes of word keys.
	wordSeed uint64
	tab      atomic.Pointer[visitedTable]

	mu      sync.Mutex
	cond    *sync.Cond
	growing atomic.Bool
	// These change under mu, with a Broadcast, and are atomic so that a
	// waiter can spin on them without it (see await).
	preparing atomic.Bool // a user is making the next table (see grow)
	users     atomic.Int32
	// most is how many users the set is for: join refuses more at once.
	// Each table's batch is sized for that many (see visitedTable), not
	// for the users there are when the table is made: a table widened
	// while one user had joined (a parallel search's prefix) got one
	// user's batch, and eight users, each adding that batch before
	// counting it, filled it, and probed it for an empty slot forever.
	most     int32
	paused   atomic.Int32           // users stopped for a grow
	job      atomic.Pointer[rehash] // the grow under way
	inserted atomic.Int64

	// cancel is the search's Limits.Cancel (nil: never), asked while a
	// large table grows (see abandon), and afford its Limits.Afford
	// (nil: always), asked before (see refuse).
	cancel func() bool
	afford func(bytes int64) bool

	// slabs holds the tables mapped outside the heap.
	slabs *slabs

	// Keys too long for a slot, rare with compact keys, live in chunks
	// behind a mutex.
	longMu sync.Mutex
	long   chunks

	// collideForTest gives every key the same hash, so that only the bytes
	// tell keys apart; only tests set it.
	collideForTest bool
}

// chunks stores keys back to back in buffers that never move.
type chunks struct {
	bufs [][]byte
	held int64 // the buffers' capacity
}

const (
	inlineKey  = 28
	firstChunk = 1 << 14
	chunkSize  = 1 << 20
)

// store copies key into the last chunk, starting a new one when it is full.
// Chunks double from firstChunk up to chunkSize, so a small search does not
// allocate (and zero) a megabyte.
func (v *chunks) store(key []byte) (chunk, off uint32) {
	last := len(v.bufs) - 1
	if last < 0 || len(v.bufs[last])+len(key) > cap(v.bufs[last]) {
		size := firstChunk
		if last >= 0 {
			size = min(2*cap(v.bufs[last]), chunkSize)
		}
		size = max(size, len(key))
		v.bufs = append(v.bufs, make([]byte, 0, size))
		v.held += int64(size)
		last++
	}
	off = uint32(len(v.bufs[last]))
	v.bufs[last] = append(v.bufs[last], key...)
	return uint32(last + 1), off
}

type visitedTable struct {
	// Exactly one of words (while every key is a word key) and slots is
	// set; its len is a power of 2.
	words []word
	slots []visitedSlot
	// limit: grow once more keys than this are counted; batch: how many a
	// user inserts before it counts them, sized for the most users the set
	// is for (so a table is at most limit + most*batch full, three
	// quarters). hard: while the next table is prepared (see grow), users
	// go on adding until this many keys are counted (so at most hard +
	// most*batch, seven eighths).
	limit, hard, batch int64
	// peekEarly: the table takes earlyPeekBytes or more, so depth-first
	// searches peek early (see depthFirst.peekEarly)
	peekEarly bool
}

// visitedSlot is 32 bytes: the key's length plus one (0: an empty slot;
// busy while being written), and the key itself when it fits in inline,
// else the chunk number plus one and the offset where it is stored.
type visitedSlot struct {
	n      atomic.Uint32
	inline [inlineKey]byte
}

const busy = ^uint32(0)

// word is a table entry of word keys: 0 when empty, else a key packed by
// WordKey.
type word = atomic.Uint64

// hashWord is the hash of the word key packed into x: murmur3's finalizer
// of x and the set's seed.
func (s *visitedSet) hashWord(x uint64) uint64 {
	if s.collideForTest {
		return 7
	}
	x ^= s.wordSeed
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

// bytes is the memory t's entries take.
func (t *visitedTable) bytes() int64 {
	return int64(len(t.words))*int64(unsafe.Sizeof(word{})) + int64(len(t.slots))*int64(unsafe.Sizeof(visitedSlot{}))
}

// len is how many entries t has.
func (t *visitedTable) len() int { return max(len(t.words), len(t.slots)) }

// setUser is one goroutine's handle on a visitedSet.
type setUser struct {
	set     *visitedSet
	pending int64 // inserted, not yet counted in set.inserted
}

// newVisitedSet is an empty set for at most users goroutines at once;
// cancel is the search's Limits.Cancel.
func newVisitedSet(users int, cancel func() bool) *visitedSet {
	s := &visitedSet{seed: maphash.MakeSeed(), slabs: &slabs{}, cancel: cancel, most: int32(max(users, 1))}
	s.wordSeed = maphash.Bytes(s.seed, []byte("words"))
	s.cond = sync.NewCond(&s.mu)
	s.slabs.watch(s)
	s.tab.Store(s.newTable(1<<10, true))
	return s
}

// newSearchSet is newVisitedSet for a search bounded by lim: its
// Cancel and Afford.
func newSearchSet(users int, lim Limits) *visitedSet {
	s := newVisitedSet(users, lim.Cancel)
	s.afford = lim.Afford
	return s
}

// free gives back the set's tables, once every user has left and the
// search has read what it needs (bytes); nothing may use the set after.
func (s *visitedSet) free() {
	s.slabs.releaseAll()
	s.tab.Store(nil)
}

// newTable is an empty table of size entries: words or slots.
func (s *visitedSet) newTable(size int, words bool) *visitedTable {
	t := &visitedTable{limit: int64(size) * 11 / 16, hard: int64(size) * 13 / 16}
	if words {
		t.words = slab[word](s.slabs, size)
	} else {
		t.slots = slab[visitedSlot](s.slabs, size)
	}
	t.batch = max(1, int64(size)/(16*int64(s.most)))
	t.peekEarly = t.bytes() >= earlyPeekBytes
	return t
}

// join returns a handle for one more goroutine; it must leave when done.
// More users at once than the set is for (most) is a bug in the search.
func (s *visitedSet) join() *setUser {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.users.Add(1); n > s.most {
		s.users.Add(-1)
		panic(fmt.Sprintf("sched: %d users at once of a visited set made for %d", n, s.most))
	}
	return &setUser{set: s}
}

// leave ends u's use of the set.
func (u *setUser) leave() {
	s := u.set
	s.inserted.Add(u.pending)
	u.pending = 0
	s.mu.Lock()
	s.users.Add(-1)
	s.cond.Broadcast() // a grower may be waiting for this user
	s.mu.Unlock()
}

// add inserts key and reports whether it was new.
func (u *setUser) add(key []byte) bool { return u.addHashed(key, u.set.hashKey(key)) }

// prefetcher starts bringing in the entries where lookups of keys begin,
// so that adds of them soon after do not wait for memory. It holds the
// table it was made for: made again after an add (which may grow the
// table), it prefetches where the lookups will look.
type prefetcher struct {
	base  unsafe.Pointer // the table's first entry
	mask  uint64         // its len - 1
	shift uint8          // log2 of an entry's size
	early bool           // the table's peekEarly
}

// The shifts below are the entries' sizes: these fail to compile if not.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(visitedSlot{})-1<<5]
	_ = [1]struct{}{}[unsafe.Sizeof(word{})-1<<3]
)

// prefetcher is a prefetcher for the set's table now.
func (u *setUser) prefetcher() prefetcher {
	t := u.set.tab.Load()
	if t.words != nil {
		return prefetcher{unsafe.Pointer(unsafe.SliceData(t.words)), uint64(len(t.words) - 1), 3, t.peekEarly}
	}
	return prefetcher{unsafe.Pointer(unsafe.SliceData(t.slots)), uint64(len(t.slots) - 1), 5, t.peekEarly}
}

// fetch starts bringing in the entry where the lookup of a key of hash h
// begins.
func (p prefetcher) fetch(h uint64) { prefetch(unsafe.Add(p.base, (h&p.mask)<<p.shift)) }

// addHashed is add of a key whose hashKey is h.
func (u *setUser) addHashed(key []byte, h uint64) bool { return u.insert(key, 0, false, h) }

// addWord is add of the word key packed in x (WordKey), whose hashKey is
// h: insert's own path while the table is of words and not growing (as
// insert, it asks about a grow before it reads the table).
func (u *setUser) addWord(x, h uint64) bool {
	s := u.set
	if s.growing.Load() {
		return u.insert(nil, x, true, h)
	}
	t := s.tab.Load()
	if t.words == nil {
		return u.insert(nil, x, true, h)
	}
	if !t.addWord(h, x) {
		return false
	}
	u.counted(t)
	return true
}

// insert adds the key, given as bytes or, when isWord, as a packed word
// key x; h is its hashKey.
func (u *setUser) insert(key []byte, x uint64, isWord bool, h uint64) bool {
	s := u.set
	if s.growing.Load() {
		s.pause()
	}
	t := s.tab.Load()
	if !isWord && t.words != nil {
		if x, isWord = WordKey(key); !isWord {
			for t.words != nil { // widen the table for this key
				s.grow(t, true)
				t = s.tab.Load()
			}
		}
	}
	var fresh bool
	switch {
	case t.words != nil:
		fresh = t.addWord(h, x)
	case isWord && key == nil:
		var buf [8]byte
		fresh = t.add(h, unpackWord(x, &buf), u)
	default:
		fresh = t.add(h, key, u)
	}
	if !fresh {
		return false
	}
	u.counted(t)
	return true
}

// counted counts a key u has inserted in t, and grows t once it is full.
func (u *setUser) counted(t *visitedTable) {
	if u.pending++; u.pending >= t.batch {
		if u.set.inserted.Add(u.pending) > t.limit {
			u.set.grow(t, false)
		}
		u.pending = 0
	}
}

// addWord is visitedSet.add of a word key, packed in x, to a table of
// words.
func (t *visitedTable) addWord(h, x uint64) bool {
	mask := uint64(len(t.words) - 1)
	base := unsafe.Pointer(unsafe.SliceData(t.words))
	for i := h & mask; ; i = (i + 1) & mask {
		// &t.words[i] without a bounds check: i is masked below len
		w := (*word)(unsafe.Add(base, i*uint64(unsafe.Sizeof(word{}))))
		v := w.Load()
		if v == 0 {
			if w.CompareAndSwap(0, x) {
				return true
			}
			v = w.Load() // another user claimed it
		}
		if v == x {
			return false
		}
	}
}

// add is visitedSet.add on a table of slots.
func (t *visitedTable) add(h uint64, key []byte, u *setUser) bool {
	if uint64(len(key)) >= 1<<32-2 {
		panic("sched: a state key of 4 GiB")
	}
	mask := uint64(len(t.slots) - 1)
	want := uint32(len(key)) + 1
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		n := s.n.Load()
		if n == 0 {
			if !s.n.CompareAndSwap(0, busy) {
				n = s.n.Load() // another user claimed it: read it as taken
			} else {
				if len(key) <= inlineKey {
					copy(s.inline[:], key)
				} else {
					u.set.storeLong(s, key)
				}
				s.n.Store(want)
				return true
			}
		}
		for n == busy {
			runtime.Gosched()
			n = s.n.Load()
		}
		if n == want && u.set.equal(s, n, key) {
			return false
		}
	}
}

// storeLong puts a key too long for a slot in the chunks and names it in sl.
func (s *visitedSet) storeLong(sl *visitedSlot, key []byte) {
	s.longMu.Lock()
	defer s.longMu.Unlock()
	chunk, off := s.long.store(key)
	binary.LittleEndian.PutUint32(sl.inline[0:], chunk)
	binary.LittleEndian.PutUint32(sl.inline[4:], off)
}

// hashKey is where key's probe starts.
func (s *visitedSet) hashKey(key []byte) uint64 {
	if s.collideForTest {
		return 7
	}
	if x, ok := WordKey(key); ok {
		return s.hashWord(x)
	}
	return maphash.Bytes(s.seed, key)
}

// key is the key in the published slot sl, whose length word is n. A
// long key's bytes were written before the slot was published and never
// change, so only finding its chunk needs the mutex.
func (s *visitedSet) key(sl *visitedSlot, n uint32) []byte {
	n--
	if n <= inlineKey {
		return sl.inline[:n]
	}
	chunk := binary.LittleEndian.Uint32(sl.inline[0:])
	off := binary.LittleEndian.Uint32(sl.inline[4:])
	s.longMu.Lock()
	buf := s.long.bufs[chunk-1]
	s.longMu.Unlock()
	return buf[off : off+n : off+n]
}

// hash is the hash of the key in the published slot sl, whose length word
// is n.
func (s *visitedSet) hash(sl *visitedSlot, n uint32) uint64 { return s.hashKey(s.key(sl, n)) }

// equal reports whether the published slot sl, whose length word is n,
// holds key.
func (s *visitedSet) equal(sl *visitedSlot, n uint32, key []byte) bool {
	return string(s.key(sl, n)) == string(key)
}

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
	if spinFor > 0 {
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

// spinFor is how long await spins before it sleeps; tests set it to 0
// to try the sleeping alone.
var spinFor = 2 * time.Millisecond

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

// bytes is the memory the set holds.
func (s *visitedSet) bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.longMu.Lock()
	defer s.longMu.Unlock()
	return s.tab.Load().bytes() + s.long.held
}
