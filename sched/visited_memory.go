package sched

// The visited set's memory accounting: what its tables and chunks hold,
// which Limits.MaxMemory weighs.

import "unsafe"

// bytes is the memory t's entries take.
func (t *visitedTable) bytes() int64 {
	return int64(len(t.words))*int64(unsafe.Sizeof(word{})) + int64(len(t.slots))*int64(unsafe.Sizeof(visitedSlot{}))
}

// bytes is the memory the set holds.
func (s *visitedSet) bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.longMu.Lock()
	defer s.longMu.Unlock()
	return s.tab.Load().bytes() + s.long.held
}
