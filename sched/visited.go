package sched

import "hash/maphash"

// visitedSet is the set of states a stateful search has seen, keyed by
// their full canonical encoding: a hash only finds the slot, the bytes
// decide, so a collision can never prune an unseen state. Keys live in
// fixed-size chunks (no allocation per state, no copying as the set grows,
// nothing for the collector to scan).
type visitedSet struct {
	seed   maphash.Seed
	slots  []visitedSlot // open addressing, linear probing; len is a power of 2
	chunks [][]byte
	n      int
}

type visitedSlot struct {
	hash  uint64
	chunk uint32 // chunk index + 1 (0: empty slot)
	off   uint32
	len   uint32
}

const chunkSize = 1 << 20

func newVisitedSet() *visitedSet {
	return &visitedSet{seed: maphash.MakeSeed(), slots: make([]visitedSlot, 1<<12)}
}

func (v *visitedSet) key(s *visitedSlot) []byte {
	return v.chunks[s.chunk-1][s.off : s.off+s.len]
}

// add inserts key and reports whether it was new.
func (v *visitedSet) add(key []byte) bool {
	return v.addHashed(maphash.Bytes(v.seed, key), key)
}

// store copies key into the last chunk, starting a new one when it is full.
func (v *visitedSet) store(key []byte) (chunk, off uint32) {
	last := len(v.chunks) - 1
	if last < 0 || len(v.chunks[last])+len(key) > cap(v.chunks[last]) {
		v.chunks = append(v.chunks, make([]byte, 0, max(chunkSize, len(key))))
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
	for _, s := range old {
		if s.chunk == 0 {
			continue
		}
		i := s.hash & mask
		for v.slots[i].chunk != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = s
	}
}

// bytes is the memory the set holds.
func (v *visitedSet) bytes() int64 {
	return int64(len(v.chunks))*chunkSize + int64(len(v.slots))*24
}

// addHashed is add with the key's hash already computed (with v.seed).
func (v *visitedSet) addHashed(h uint64, key []byte) bool {
	mask := uint64(len(v.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &v.slots[i]
		if s.chunk == 0 {
			s.hash, s.len = h, uint32(len(key))
			s.chunk, s.off = v.store(key)
			v.n++
			if v.n*4 > len(v.slots)*3 {
				v.grow()
			}
			return true
		}
		if s.hash == h && string(v.key(s)) == string(key) {
			return false
		}
	}
}
