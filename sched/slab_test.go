package sched

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// A table of hugeTable slots or more is mapped (on Linux) and zeroed, and
// its set forgets it when it is released; smaller ones are on the heap.
func TestSlabsMapLargeTables(t *testing.T) {
	var m slabs
	small := m.slots(hugeTable / 2)
	require.Len(t, small, hugeTable/2)
	require.Empty(t, m.maps, "a small table was mapped")

	big := m.slots(hugeTable)
	require.Len(t, big, hugeTable)
	for i := range big {
		require.Zero(t, big[i].n.Load())
	}
	big[len(big)-1].n.Store(7) // writable to its end
	if runtime.GOOS == "linux" {
		require.Len(t, m.maps, 1)
	}
	other := m.slots(hugeTable)
	m.release(big)
	if runtime.GOOS == "linux" {
		require.Len(t, m.maps, 1, "release kept the table")
	}
	m.release(small) // not mapped: nothing to do
	other[0].n.Store(1)
	m.releaseAll()
	require.Empty(t, m.maps)
}

// A set that grows past hugeTable keeps every key through the grows that
// unmap its old tables, and free gives the last one back.
func TestVisitedSetGrowsThroughMappedTables(t *testing.T) {
	s := newVisitedSet(1)
	u := s.join()
	const keys = 3 * hugeTable / 2
	for k := range keys {
		require.True(t, u.add(visitedTestKey(k)))
	}
	for k := range keys {
		require.False(t, u.add(visitedTestKey(k)), "key %d lost", k)
	}
	u.leave()
	if runtime.GOOS == "linux" {
		require.Len(t, s.slabs.maps, 1, "old tables were not unmapped")
	}
	s.free()
	require.Empty(t, s.slabs.maps)
}
