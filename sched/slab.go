package sched

import (
	"runtime"
	"sync"
	"unsafe"
)

// hugeTable is the smallest visited table, in slots, that is mapped
// outside the heap (mapSlots) rather than allocated on it: 4 MiB, two huge
// pages. Smaller tables stay in the caches and gain nothing.
const hugeTable = 4 << 20 / int(unsafe.Sizeof(visitedSlot{}))

// slabs are a visited set's tables mapped outside the heap, which the
// collector does not free: the set unmaps a table when it grows past it
// and the rest when the search frees the set, or, should a search forget,
// when the collector finds the set unreachable.
type slabs struct {
	mu   sync.Mutex
	maps map[*visitedSlot][]byte // by first slot
}

// slots returns n zeroed slots, mapped when n is large enough and the
// platform allows it.
func (m *slabs) slots(n int) []visitedSlot {
	if n >= hugeTable {
		if b := mapSlots(n); b != nil {
			s := unsafe.Slice((*visitedSlot)(unsafe.Pointer(&b[0])), n)
			m.mu.Lock()
			if m.maps == nil {
				m.maps = map[*visitedSlot][]byte{}
			}
			m.maps[&s[0]] = b
			m.mu.Unlock()
			return s
		}
	}
	return make([]visitedSlot, n)
}

// release unmaps s if it was mapped; nothing may use s after.
func (m *slabs) release(s []visitedSlot) {
	if len(s) == 0 {
		return
	}
	m.mu.Lock()
	b, ok := m.maps[&s[0]]
	delete(m.maps, &s[0])
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
