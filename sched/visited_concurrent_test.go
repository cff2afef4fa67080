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
// of them, and afterwards the set holds each key once. Short keys sit in slots, long ones in chunks.
func TestVisitedSetConcurrentAdds(t *testing.T) {
	for _, tt := range []struct{ users, keys int }{{1, 20000}, {2, 20000}, {4, 20000}, {8, 20000}, {2, 300000}, {3, 300000}} {
		users, keys := tt.users, tt.keys
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
		require.Greater(t, len(s.tab.Load().slots), keys, "the table never grew")
	}
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
// table answers as the old did, and the parts claimed add up.
func TestRehashInParts(t *testing.T) {
	s := newVisitedSet(1)
	u := s.join()
	const keys = 200000
	for k := range keys {
		require.True(t, u.add(visitedTestKey(k)))
	}
	u.leave()
	old := s.tab.Load()
	j := &rehash{set: s, old: old, new: s.newTable(2*len(old.slots), 1)}
	j.parts = int64((len(old.slots) + rehashPart - 1) / rehashPart)
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
	stored := 0
	for i := range j.new.slots {
		if j.new.slots[i].n.Load() != 0 {
			stored++
		}
	}
	require.Equal(t, keys, stored)
	for k := range keys {
		require.False(t, u.add(visitedTestKey(k)), "key %d lost", k)
	}
}
