package sched

import (
	"encoding/binary"
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
// A slot is half a cache line and holds its key when the key is short (a
// compact or canonical key usually is: 5 to 20 bytes), so a lookup in a set
// too big for the caches costs one miss, not one for the slot and one for
// the key. Longer keys live in chunks (no allocation per state, no copying
// as the set grows, nothing for the collector to scan) and the slot points
// there. Slots keep no hash: growing hashes the keys again.
//
// Lookups take no lock: a lock's word would move between the cores on
// nearly every step, and two workers would then run slower than one. A
// goroutine inserts by claiming an empty slot with a compare-and-swap of
// its length word to busy, writing the key, then publishing the length; a
// reader that meets a busy slot waits for it. Growing needs the table to
// itself: the goroutine that finds it too full raises a flag, waits until
// every other user has stopped at its next add, and shares the rehashing
// out with them. Users are counted (join, leave) so that a user that has
// finished is not waited for.
type visitedSet struct {
	seed maphash.Seed
	tab  atomic.Pointer[visitedTable]

	mu       sync.Mutex
	cond     *sync.Cond
	growing  atomic.Bool
	users    int     // under mu
	paused   int     // users stopped for a grow, under mu
	job      *rehash // the grow under way, under mu
	inserted atomic.Int64

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
	slots []visitedSlot // len is a power of 2
	// limit: grow once more keys than this are counted; batch: how many a
	// user inserts before it counts them (so a table is at most limit +
	// users*batch full, under three quarters).
	limit, batch int64
}

// visitedSlot is 32 bytes: the key's length plus one (0: an empty slot;
// busy while being written), and the key itself when it fits in inline,
// else the chunk number plus one and the offset where it is stored.
type visitedSlot struct {
	n      atomic.Uint32
	inline [inlineKey]byte
}

const busy = ^uint32(0)

// setUser is one goroutine's handle on a visitedSet.
type setUser struct {
	set     *visitedSet
	pending int64 // inserted, not yet counted in set.inserted
}

func newVisitedSet(users int) *visitedSet {
	s := &visitedSet{seed: maphash.MakeSeed(), slabs: &slabs{}}
	s.cond = sync.NewCond(&s.mu)
	s.slabs.watch(s)
	s.tab.Store(s.newTable(1<<10, users))
	return s
}

// free gives back the set's tables, once every user has left and the
// search has read what it needs (bytes); nothing may use the set after.
func (s *visitedSet) free() {
	s.slabs.releaseAll()
	s.tab.Store(nil)
}

func (s *visitedSet) newTable(size int, users int) *visitedTable {
	t := &visitedTable{slots: s.slabs.slots(size), limit: int64(size) * 11 / 16}
	t.batch = max(1, int64(size)/(16*int64(max(users, 1))))
	return t
}

// join returns a handle for one more goroutine; it must leave when done.
func (s *visitedSet) join() *setUser {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users++
	return &setUser{set: s}
}

// leave ends u's use of the set.
func (u *setUser) leave() {
	s := u.set
	s.inserted.Add(u.pending)
	u.pending = 0
	s.mu.Lock()
	s.users--
	s.cond.Broadcast() // a grower may be waiting for this user
	s.mu.Unlock()
}

// add inserts key and reports whether it was new.
func (u *setUser) add(key []byte) bool { return u.addHashed(key, u.set.hashKey(key)) }

// prefetch starts bringing in the slot where a lookup of a key of hash h
// begins, so that an add of it soon after does not wait for memory.
func (u *setUser) prefetch(h uint64) {
	t := u.set.tab.Load()
	prefetch(unsafe.Pointer(&t.slots[h&uint64(len(t.slots)-1)]))
}

// addHashed is add of a key whose hashKey is h.
func (u *setUser) addHashed(key []byte, h uint64) bool {
	s := u.set
	if s.growing.Load() {
		s.pause()
	}
	t := s.tab.Load()
	if !t.add(h, key, u) {
		return false
	}
	if u.pending++; u.pending >= t.batch {
		if s.inserted.Add(u.pending) > t.limit {
			s.grow(t)
		}
		u.pending = 0
	}
	return true
}

// add is visitedSet.add on one table.
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
	s.paused++
	s.cond.Broadcast()
	var helped *rehash
	for s.growing.Load() {
		if j := s.job; j != nil && j != helped {
			helped = j
			s.mu.Unlock()
			j.work()
			s.mu.Lock()
			s.cond.Broadcast() // the grower may be waiting for the last part
			continue
		}
		s.cond.Wait()
	}
	s.paused--
	s.mu.Unlock()
}

// rehash is one grow's copying of the old table into the new, in parts
// that the grower and the paused users claim in turn.
type rehash struct {
	set      *visitedSet
	old, new *visitedTable
	next     atomic.Int64 // the next part to claim
	finished atomic.Int64 // parts done
	parts    int64
}

// rehashPart is how many old slots one claim copies.
const rehashPart = 1 << 14

// work copies parts until none is left to claim, and says how many it
// copied.
func (j *rehash) work() (parts int64) {
	mask := uint64(len(j.new.slots) - 1)
	for ; ; parts++ {
		p := j.next.Add(1) - 1
		if p >= j.parts {
			return parts
		}
		lo := int(p) * rehashPart
		for i := lo; i < min(lo+rehashPart, len(j.old.slots)); i++ {
			old := &j.old.slots[i]
			n := old.n.Load()
			if n == 0 {
				continue
			}
			// The old keys are distinct: claim the first free slot.
			for k := j.set.hash(old, n) & mask; ; k = (k + 1) & mask {
				ns := &j.new.slots[k]
				if ns.n.Load() == 0 && ns.n.CompareAndSwap(0, busy) {
					ns.inline = old.inline
					ns.n.Store(n)
					break
				}
			}
		}
		j.finished.Add(1)
	}
}

// grow replaces t by a table twice its size, once every other user has
// paused; the paused users help copy. If another user is growing already,
// the caller pauses instead.
func (s *visitedSet) grow(t *visitedTable) {
	s.mu.Lock()
	if s.tab.Load() != t {
		s.mu.Unlock() // grown meanwhile
		return
	}
	if !s.growing.CompareAndSwap(false, true) {
		s.mu.Unlock()
		s.pause()
		return
	}
	for s.paused < s.users-1 {
		s.cond.Wait()
	}
	g := s.newTable(2*len(t.slots), s.users)
	// Touch every page first, alone: on some virtual machines two threads
	// faulting fresh pages in at once are much slower than one.
	for i := 0; i < len(g.slots); i += 4096 / int(unsafe.Sizeof(visitedSlot{})) {
		g.slots[i].inline[0] = 0
	}
	j := &rehash{set: s, old: t, new: g}
	j.parts = int64((len(t.slots) + rehashPart - 1) / rehashPart)
	s.job = j
	s.cond.Broadcast()
	s.mu.Unlock()
	j.work()
	s.mu.Lock()
	for j.finished.Load() < j.parts {
		s.cond.Wait()
	}
	// Every part is copied, so nobody reads the old table any more.
	s.slabs.release(t.slots)
	s.tab.Store(j.new)
	s.job = nil
	s.growing.Store(false)
	s.cond.Broadcast()
	s.mu.Unlock()
}

// bytes is the memory the set holds.
func (s *visitedSet) bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.longMu.Lock()
	defer s.longMu.Unlock()
	return int64(len(s.tab.Load().slots))*int64(unsafe.Sizeof(visitedSlot{})) + s.long.held
}
