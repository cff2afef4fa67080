package sched

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// minMappedSlots is how many slots take mapBytes.
const minMappedSlots = mapBytes / int(unsafe.Sizeof(visitedSlot{}))

// A table of minMappedSlots slots or more is mapped (on Linux) and zeroed, and
// its set forgets it when it is released; smaller ones are on the heap.
func TestSlabsMapLargeTables(t *testing.T) {
	var m slabs
	small := slab[visitedSlot](&m, minMappedSlots/2)
	require.Len(t, small, minMappedSlots/2)
	require.Empty(t, m.maps, "a small table was mapped")

	big := slab[visitedSlot](&m, minMappedSlots)
	require.Len(t, big, minMappedSlots)
	for i := range big {
		require.Zero(t, big[i].n.Load())
	}
	big[len(big)-1].n.Store(7) // writable to its end
	if runtime.GOOS == "linux" {
		require.Len(t, m.maps, 1)
	}
	other := slab[visitedSlot](&m, minMappedSlots)
	releaseSlab(&m, big)
	if runtime.GOOS == "linux" {
		require.Len(t, m.maps, 1, "release kept the table")
	}
	releaseSlab(&m, small) // not mapped: nothing to do
	other[0].n.Store(1)
	m.releaseAll()
	require.Empty(t, m.maps)
}

// A set that grows past minMappedSlots keeps every key through the grows that
// unmap its old tables, and free gives the last one back.
func TestVisitedSetGrowsThroughMappedTables(t *testing.T) {
	t.Run("slots", func(t *testing.T) { testGrowsThroughMappedTables(t, slotKeys.key(0), 3*minMappedSlots/2) })
	t.Run("words", func(t *testing.T) { testGrowsThroughMappedTables(t, wordKeys.key(0), 3*mapBytes/8/2) })
}

func testGrowsThroughMappedTables(t *testing.T, visitedTestKey func(int) []byte, keys int) {
	s := newVisitedSet(1, nil)
	u := s.join()
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
