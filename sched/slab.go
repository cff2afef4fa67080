package sched

import (
	"runtime"
	"sync"
	"unsafe"
)

// mapBytes is the size of the smallest visited table that is mapped
// outside the heap (mapSlots) rather than allocated on it: 64 KiB. From 4
// MiB, two huge pages, a mapped table also saves TLB misses (see
// mapSlots). Below that, mapping saves the collector's work: a table on
// the heap is garbage as soon as the set grows past it: mapped and
// unmapped at once, the tables of BenchmarkExhaustiveMerged4 left 1.4 MB
// of garbage a search, not 2.7 MB, and the collector ran every other
// search, not every one; see docs/performance.md. The smallest tables
// stay on the heap, where a mapping would cost more than they do.
const mapBytes = 64 << 10

// slabs are a visited set's tables mapped outside the heap, which the
// collector does not free: the set unmaps a table when it grows past it
// and the rest when the search frees the set, or, should a search forget,
// when the collector finds the set unreachable.
type slabs struct {
	mu   sync.Mutex
	maps map[unsafe.Pointer][]byte // by first byte
}

// slab returns n zeroed table entries (visitedSlot or word), mapped when
// they take mapBytes or more and the platform allows it. Mapped memory
// holds no Go pointers, which neither kind of entry has.
func slab[T visitedSlot | word](m *slabs, n int) []T {
	if size := n * int(unsafe.Sizeof(*new(T))); size >= mapBytes {
		if b := mapSlots(size); b != nil {
			m.mu.Lock()
			if m.maps == nil {
				m.maps = map[unsafe.Pointer][]byte{}
			}
			m.maps[unsafe.Pointer(&b[0])] = b
			m.mu.Unlock()
			return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
		}
	}
	return make([]T, n)
}

// releaseSlab unmaps s if it was mapped; nothing may use s after.
func releaseSlab[T visitedSlot | word](m *slabs, s []T) {
	if len(s) == 0 {
		return
	}
	m.mu.Lock()
	b, ok := m.maps[unsafe.Pointer(&s[0])]
	delete(m.maps, unsafe.Pointer(&s[0]))
	m.mu.Unlock()
	if ok {
		unmapSlots(b)
	}
}

// releaseAll unmaps every table still mapped.
func (m *slabs) releaseAll() {
	m.mu.Lock()
	maps := m.maps
	m.maps = nil
	m.mu.Unlock()
	for _, b := range maps {
		unmapSlots(b)
	}
}

// watch makes the collector unmap what s still holds once s is
// unreachable (a search that forgot to free it).
func (m *slabs) watch(s *visitedSet) {
	runtime.AddCleanup(s, func(m *slabs) { m.releaseAll() }, m)
}
