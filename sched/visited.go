package sched

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
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
	t.peekEarly = debug.peekEarlyAlways || t.bytes() >= earlyPeekBytes
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
