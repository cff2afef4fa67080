package sched

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"
)

// visitedSet is the set of states a stateful search has seen, keyed by
// their full encoding: a hash only finds the slot, the bytes decide, so a
// collision can never prune an unseen state.
//
// A slot is half a cache line and holds its key when the key is short (a
// compact or canonical key usually is: 5 to 20 bytes), so a lookup in a set
// too big for the caches costs one miss, not one for the slot and one for
// the key. Longer keys live in chunks (no allocation per state, no copying
// as the set grows, nothing for the collector to scan) and the slot points
// there. Slots keep no hash: growing hashes the keys again.
type visitedSet struct {
	seed   maphash.Seed
	slots  []visitedSlot // open addressing, linear probing; len is a power of 2
	chunks [][]byte
	held   int64 // the chunks' capacity
	n      int
}

// visitedSlot is 32 bytes: the key's length plus one (0: an empty slot),
// and the key itself when it fits in inline, else the chunk number plus
// one and the offset where it is stored.
type visitedSlot struct {
	n      uint32
	inline [inlineKey]byte
}

const (
	inlineKey  = 28
	firstChunk = 1 << 14
	chunkSize  = 1 << 20
)

func newVisitedSet() *visitedSet {
	return &visitedSet{seed: maphash.MakeSeed(), slots: make([]visitedSlot, 1<<10)}
}

// key is the key slot s holds.
func (v *visitedSet) key(s *visitedSlot) []byte {
	n := s.n - 1
	if n <= inlineKey {
		return s.inline[:n]
	}
	chunk := binary.LittleEndian.Uint32(s.inline[0:])
	off := binary.LittleEndian.Uint32(s.inline[4:])
	return v.chunks[chunk-1][off : off+n]
}

// add inserts key and reports whether it was new.
func (v *visitedSet) add(key []byte) bool {
	return v.addHashed(maphash.Bytes(v.seed, key), key)
}

// store copies key into the last chunk, starting a new one when it is full.
// Chunks double from firstChunk up to chunkSize, so a small search does not
// allocate (and zero) a megabyte.
func (v *visitedSet) store(key []byte) (chunk, off uint32) {
	last := len(v.chunks) - 1
	if last < 0 || len(v.chunks[last])+len(key) > cap(v.chunks[last]) {
		size := firstChunk
		if last >= 0 {
			size = min(2*cap(v.chunks[last]), chunkSize)
		}
		size = max(size, len(key))
		v.chunks = append(v.chunks, make([]byte, 0, size))
		v.held += int64(size)
		last++
	}
	off = uint32(len(v.chunks[last]))
	v.chunks[last] = append(v.chunks[last], key...)
	return uint32(last + 1), off
}

func (v *visitedSet) grow() {
	old := v.slots
	v.slots = make([]visitedSlot, 2*len(old))
	mask := uint64(len(v.slots) - 1)
	for i := range old {
		s := &old[i]
		if s.n == 0 {
			continue
		}
		j := maphash.Bytes(v.seed, v.key(s)) & mask
		for v.slots[j].n != 0 {
			j = (j + 1) & mask
		}
		v.slots[j] = *s
	}
}

// bytes is the memory the set holds.
func (v *visitedSet) bytes() int64 {
	return v.held + int64(len(v.slots))*int64(unsafe.Sizeof(visitedSlot{}))
}

// addHashed is add with the key's hash already computed (with v.seed).
func (v *visitedSet) addHashed(h uint64, key []byte) bool {
	if len(key) >= 1<<32-1 {
		panic("sched: a state key of 4 GiB")
	}
	mask := uint64(len(v.slots) - 1)
	n := uint32(len(key)) + 1
	for i := h & mask; ; i = (i + 1) & mask {
		s := &v.slots[i]
		if s.n == 0 {
			s.n = n
			if len(key) <= inlineKey {
				copy(s.inline[:], key)
			} else {
				chunk, off := v.store(key)
				binary.LittleEndian.PutUint32(s.inline[0:], chunk)
				binary.LittleEndian.PutUint32(s.inline[4:], off)
			}
			v.n++
			if v.n*4 > len(v.slots)*3 {
				v.grow()
			}
			return true
		}
		if s.n == n && string(v.key(s)) == string(key) {
			return false
		}
	}
}
