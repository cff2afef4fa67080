package sched

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Goroutines adding overlapping keys to a visited set, through several
// grows (paused users helping to rehash): every key is new to exactly one
// of them, and afterwards the set holds each key once. Word keys sit in
// words until a key that is not one widens the table; short keys sit in
// slots, long ones in chunks.
func TestVisitedSetConcurrentAdds(t *testing.T) {
	for _, tt := range []struct {
		users, keys int
		kind        testKeys
	}{{1, 20000, slotKeys}, {2, 20000, slotKeys}, {4, 20000, slotKeys}, {8, 20000, slotKeys}, {2, 300000, slotKeys}, {3, 300000, slotKeys},
		{1, 20000, wordKeys}, {4, 20000, wordKeys}, {8, 20000, mixedKeys}, {2, 300000, wordKeys}, {3, 300000, mixedKeys}} {
		users, keys := tt.users, tt.keys
		visitedTestKey := tt.kind.key(keys)
		s := newVisitedSet(users)
		news := make([]int, keys)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for g := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				u := s.join()
				defer u.leave()
				mine := make([]int, keys)
				for i := range keys {
					k := (i*7 + g*keys/users) % keys // every user adds every key, from different starts
					if u.add(visitedTestKey(k)) {
						mine[k]++
					}
				}
				mu.Lock()
				for k, n := range mine {
					news[k] += n
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		for k, n := range news {
			require.Equal(t, 1, n, "%d users: key %d was new to %d adds", users, k, n)
		}
		u := s.join()
		for k := range keys {
			require.False(t, u.add(visitedTestKey(k)), "%d users: key %d lost", users, k)
		}
		require.True(t, u.add(visitedTestKey(keys)))
		u.leave()
		tab := s.tab.Load()
		require.Greater(t, tab.len(), keys, "the table never grew")
		require.Equal(t, tt.kind == wordKeys, tab.words != nil, "words kept or widened wrongly")
		require.Equal(t, keys+1, tab.stored())
		// free keeps s reachable until here: unreachable, its cleanup
		// could unmap tab while stored reads it
		s.free()
	}
}

// testKeys is a kind of keys for the visited set's tests.
type testKeys int

const (
	slotKeys  testKeys = iota // short keys with zero bytes, every tenth long
	wordKeys                  // word keys only
	mixedKeys                 // word keys, and one long key halfway
)

// key is a function from k to its key of the kind, for n keys.
func (kind testKeys) key(n int) func(k int) []byte {
	return func(k int) []byte {
		if kind == slotKeys || kind == mixedKeys && k == n/2 {
			return visitedTestKey(k)
		}
		return binary.AppendUvarint(nil, uint64(k)+1)
	}
}

// stored is how many keys t holds.
func (t *visitedTable) stored() int {
	n := 0
	for i := range t.words {
		if t.words[i].Load() != 0 {
			n++
		}
	}
	for i := range t.slots {
		if t.slots[i].n.Load() != 0 {
			n++
		}
	}
	return n
}

// visitedTestKey is k's key: short for most k, longer than a slot holds for
// every tenth.
func visitedTestKey(k int) []byte {
	n := 8
	if k%10 == 0 {
		n = 2 * inlineKey
	}
	b := make([]byte, n)
	binary.LittleEndian.PutUint64(b, uint64(k))
	return b
}

// A rehash shared out among goroutines copies every key once: the new
// table answers as the old did, and the parts claimed add up. So for
// slots grown into slots, words into words, and words widened into slots.
func TestRehashInParts(t *testing.T) {
	for _, tt := range []struct {
		name  string
		kind  testKeys
		widen bool
	}{{"slots", slotKeys, false}, {"words", wordKeys, false}, {"widened", wordKeys, true}} {
		t.Run(tt.name, func(t *testing.T) { testRehashInParts(t, tt.kind.key(0), tt.widen) })
	}
}

func testRehashInParts(t *testing.T, visitedTestKey func(int) []byte, widen bool) {
	s := newVisitedSet(1)
	u := s.join()
	const keys = 200000
	for k := range keys {
		require.True(t, u.add(visitedTestKey(k)))
	}
	u.leave()
	old := s.tab.Load()
	size := 2 * old.len()
	if widen {
		size = old.len()
	}
	j := &rehash{set: s, old: old, new: s.newTable(size, 1, old.words != nil && !widen)}
	j.parts = int64((old.len() + rehashPart - 1) / rehashPart)
	require.Greater(t, j.parts, int64(4))
	var claimed atomic.Int64
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			claimed.Add(j.work())
		}()
	}
	wg.Wait()
	require.Equal(t, j.parts, claimed.Load())
	require.Equal(t, j.parts, j.finished.Load())
	s.tab.Store(j.new)
	u = s.join()
	defer u.leave()
	require.Equal(t, keys, j.new.stored())
	for k := range keys {
		require.False(t, u.add(visitedTestKey(k)), "key %d lost", k)
	}
}
