package sched

import (
	"encoding/binary"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// sharedSet is the visited set of a parallel search: visitedSet's table
// (64-byte slots, short keys inline, exact comparison), made safe for
// several goroutines without a lock per lookup. A lock's word would move
// between the cores on nearly every step, and two workers would then run
// slower than one.
//
// A goroutine inserts by claiming an empty slot with a compare-and-swap of
// its length word to busy, writing the key, then publishing the
// length; a reader that meets a busy slot waits for it. Growing needs the
// table to itself: the goroutine that finds it too full raises a flag,
// waits until every other user has stopped at its next add, rehashes, and
// lets them go on. Users are counted (join, leave) so that a user that has
// finished is not waited for.
type sharedSet struct {
	seed maphash.Seed
	tab  atomic.Pointer[sharedTable]

	mu       sync.Mutex
	cond     *sync.Cond
	growing  atomic.Bool
	users    int     // under mu
	paused   int     // users stopped for a grow, under mu
	job      *rehash // the grow under way, under mu
	inserted atomic.Int64

	// Keys too long for a slot, rare with compact keys, live in chunks
	// behind a mutex.
	longMu sync.Mutex
	long   visitedSet // only its chunks
}

type sharedTable struct {
	slots []sharedSlot // len is a power of 2
	// limit: grow once more keys than this are counted; batch: how many a
	// user inserts before it counts them (so a table is at most limit +
	// users*batch full, under three quarters).
	limit, batch int64
}

// sharedSlot is visitedSlot with an atomic length word: 0 empty, busy
// while being written, else the key's length plus one.
type sharedSlot struct {
	n      atomic.Uint32
	inline [inlineKey]byte
}

const busy = ^uint32(0)

// setUser is one goroutine's handle on a sharedSet.
type setUser struct {
	set     *sharedSet
	pending int64 // inserted, not yet counted in set.inserted
}

func newSharedSet(users int) *sharedSet {
	s := &sharedSet{seed: maphash.MakeSeed()}
	s.cond = sync.NewCond(&s.mu)
	s.tab.Store(newSharedTable(1<<10, users))
	return s
}

func newSharedTable(size int, users int) *sharedTable {
	t := &sharedTable{slots: make([]sharedSlot, size), limit: int64(size) * 11 / 16}
	t.batch = max(1, int64(size)/(16*int64(max(users, 1))))
	return t
}

// join returns a handle for one more goroutine; it must leave when done.
func (s *sharedSet) join() *setUser {
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
func (u *setUser) add(key []byte) bool {
	s := u.set
	if s.growing.Load() {
		s.pause()
	}
	t := s.tab.Load()
	h := maphash.Bytes(s.seed, key)
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

// add is sharedSet.add on one table.
func (t *sharedTable) add(h uint64, key []byte, u *setUser) bool {
	if len(key) >= 1<<32-2 {
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
func (s *sharedSet) storeLong(sl *sharedSlot, key []byte) {
	s.longMu.Lock()
	defer s.longMu.Unlock()
	chunk, off := s.long.store(key)
	binary.LittleEndian.PutUint32(sl.inline[0:], chunk)
	binary.LittleEndian.PutUint32(sl.inline[4:], off)
}

// hash is the hash of the key in the published slot sl, whose length word
// is n.
func (s *sharedSet) hash(sl *sharedSlot, n uint32) uint64 {
	if n-1 <= inlineKey {
		return maphash.Bytes(s.seed, sl.inline[:n-1])
	}
	chunk := binary.LittleEndian.Uint32(sl.inline[0:])
	off := binary.LittleEndian.Uint32(sl.inline[4:])
	s.longMu.Lock()
	defer s.longMu.Unlock()
	return maphash.Bytes(s.seed, s.long.chunks[chunk-1][off:off+n-1])
}

// equal reports whether the published slot sl, whose length word is n,
// holds key.
func (s *sharedSet) equal(sl *sharedSlot, n uint32, key []byte) bool {
	n--
	if n <= inlineKey {
		return string(sl.inline[:n]) == string(key)
	}
	chunk := binary.LittleEndian.Uint32(sl.inline[0:])
	off := binary.LittleEndian.Uint32(sl.inline[4:])
	s.longMu.Lock()
	defer s.longMu.Unlock()
	return string(s.long.chunks[chunk-1][off:off+n]) == string(key)
}

// pause stops the calling user until a grow is over, helping to rehash
// while it waits.
func (s *sharedSet) pause() {
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
	set      *sharedSet
	old, new *sharedTable
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
func (s *sharedSet) grow(t *sharedTable) {
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
	g := newSharedTable(2*len(t.slots), s.users)
	// Touch every page first, alone: on some virtual machines two threads
	// faulting fresh pages in at once are much slower than one.
	for i := 0; i < len(g.slots); i += 4096 / int(unsafe.Sizeof(sharedSlot{})) {
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
	s.tab.Store(j.new)
	s.job = nil
	s.growing.Store(false)
	s.cond.Broadcast()
	s.mu.Unlock()
}

// bytes is the memory the set holds.
func (s *sharedSet) bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.longMu.Lock()
	defer s.longMu.Unlock()
	return int64(len(s.tab.Load().slots))*int64(unsafe.Sizeof(sharedSlot{})) + s.long.held
}
