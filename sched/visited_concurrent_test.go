package sched

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
		concurrentAdds(t, tt.users, tt.keys, tt.kind)
	}
}

// The same with the waits of a grow sleeping at once, not spinning first
// (await).
func TestVisitedSetConcurrentAddsWithoutSpinning(t *testing.T) {
	defer NoSpinForTest()()
	for _, kind := range []testKeys{slotKeys, wordKeys, mixedKeys} {
		concurrentAdds(t, 4, 100000, kind)
	}
}

// The same while every next table takes long to prepare (grow), so that
// the other users go on adding to a table until it holds its hard limit,
// and then wait for the grow; and a widen comes while a table is
// prepared. Each slow preparation is counted, and so is each user that
// waited.
func TestVisitedSetAddsWhileTheNextTableIsPrepared(t *testing.T) {
	var prepared, waited atomic.Int64
	prepareHookForTest = func(*visitedTable) {
		prepared.Add(1)
		time.Sleep(2 * time.Millisecond)
	}
	waitHookForTest = func() { waited.Add(1) }
	defer func() { prepareHookForTest, waitHookForTest = nil, nil }()
	for _, kind := range []testKeys{slotKeys, wordKeys, mixedKeys} {
		concurrentAdds(t, 4, 100000, kind)
	}
	require.Greater(t, prepared.Load(), int64(10))
	require.Greater(t, waited.Load(), int64(0), "no user reached a table's hard limit")
}

// A widen that comes while a user prepares the next table of words waits
// for that user, which then gives its table back and pauses: the set
// ends with every key, in slots, and no other table mapped.
func TestVisitedSetWidensWhileTheNextTableIsPrepared(t *testing.T) {
	s := newVisitedSet(2, nil)
	a := s.join() // b joins later: a grow waits for every user to pause
	started, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	prepareHookForTest = func(g *visitedTable) {
		if g.words != nil && g.bytes() >= mapBytes { // mapped, so a leak shows
			once.Do(func() { close(started); <-resume })
		}
	}
	defer func() { prepareHookForTest = nil }()
	const n = 5000 // the table of 4K words grows at 2,816
	key := wordKeys.key(n)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := range n {
			a.add(key(k))
		}
		a.leave()
	}()
	<-started
	b := s.join()
	widened := make(chan bool)
	long := []byte("a key too long for a word")
	go func() {
		widened <- b.add(long)
		b.leave()
	}()
	require.Eventually(t, s.growing.Load, 10*time.Second, time.Millisecond, "the widen never started")
	close(resume)
	require.True(t, <-widened)
	<-done
	u := s.join()
	for k := range n {
		require.False(t, u.add(key(k)), "key %d lost", k)
	}
	require.False(t, u.add(long))
	u.leave()
	tab := s.tab.Load()
	require.Nil(t, tab.words, "not widened")
	require.Equal(t, n+1, tab.stored())
	require.Equal(t, 1, mappedTables(s), "a table other than the set's own is still mapped")
	s.free()
}

// concurrentAdds has users goroutines add keys keys of kind to one
// visited set, every key by every user, and checks that each was new to
// one add exactly and that the set holds them all.
func concurrentAdds(t *testing.T, users, keys int, kind testKeys) {
	t.Helper()
	visitedTestKey := kind.key(keys)
	s := newVisitedSet(users, nil)
	addAll(t, s, users, 0, keys, visitedTestKey)
	u := s.join()
	for k := range keys {
		require.False(t, u.add(visitedTestKey(k)), "%d users: key %d lost", users, k)
	}
	require.True(t, u.add(visitedTestKey(keys)))
	u.leave()
	tab := s.tab.Load()
	require.Greater(t, tab.len(), keys, "the table never grew")
	require.Equal(t, kind == wordKeys, tab.words != nil, "words kept or widened wrongly")
	require.Equal(t, keys+1, tab.stored())
	// free keeps s reachable until here: unreachable, its cleanup
	// could unmap tab while stored reads it
	s.free()
}

// addAll has users goroutines add the keys from lo to hi, every key by
// every user, each from its own start, in strides of 7 (so hi-lo must not
// be a multiple of 7), and checks that each was new to one add exactly.
func addAll(t *testing.T, s *visitedSet, users, lo, hi int, key func(int) []byte) {
	t.Helper()
	require.NotZero(t, (hi-lo)%7, "strides of 7 would miss keys")
	news := make([]atomic.Int32, hi-lo)
	var wg sync.WaitGroup
	for g := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := s.join()
			defer u.leave()
			for i := range hi - lo {
				k := (i*7 + g*(hi-lo)/users) % (hi - lo)
				if u.add(key(lo + k)) {
					news[k].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for k := range news {
		require.Equal(t, int32(1), news[k].Load(), "key %d was new to %d adds", lo+k, news[k].Load())
	}
}

// mappedTables is how many tables of s are mapped outside the heap.
func mappedTables(s *visitedSet) int {
	s.slabs.mu.Lock()
	defer s.slabs.mu.Unlock()
	return len(s.slabs.maps)
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
	s := newVisitedSet(1, nil)
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
	j := &rehash{set: s, old: old, new: s.newTable(size, old.words != nil && !widen)}
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

// A table's batch is sized for the most users the set is for, not for
// those joined when it is made: a table of slots made by a widen while
// one user of eight had joined (a parallel search's prefix) was sized
// for one, and eight users, each adding a batch before counting it,
// could fill it and then probe it forever. Every table, however made,
// leaves room for every user's uncounted keys above its limits.
func TestVisitedSetBatchesAreForEveryUser(t *testing.T) {
	const users = 8
	s := newVisitedSet(users, nil)
	defer s.free()
	check := func(what string) {
		tab := s.tab.Load()
		n := int64(tab.len())
		require.LessOrEqual(t, tab.limit+users*tab.batch, n*3/4, "%s: limit and the users' batches", what)
		require.LessOrEqual(t, tab.hard+users*tab.batch, n*7/8, "%s: hard limit and the users' batches", what)
	}
	check("the first table")
	u := s.join()
	require.True(t, u.add(visitedTestKey(1))) // not a word key: widens
	require.Nil(t, s.tab.Load().words, "not widened")
	check("a table widened by one user")
	for k := 2; s.tab.Load().len() == 1<<10; k++ {
		u.add(visitedTestKey(k))
	}
	check("a table grown by one user")
	u.leave()

	var us []*setUser
	for range users {
		us = append(us, s.join())
	}
	require.PanicsWithValue(t, "sched: 9 users at once of a visited set made for 8", func() { s.join() })
	for _, u := range us {
		u.leave()
	}
}
