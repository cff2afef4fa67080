package sched

import (
	"encoding/binary"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Goroutines adding overlapping keys to a shared set, through several
// grows: every key is new to exactly one of them, and afterwards the set
// holds each key once. Short keys sit in slots, long ones in chunks.
func TestSharedSetConcurrentAdds(t *testing.T) {
	for _, users := range []int{1, 2, 4, 8} {
		s := newSharedSet(users)
		const keys = 20000
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
					if u.add(sharedTestKey(k)) {
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
			require.False(t, u.add(sharedTestKey(k)), "%d users: key %d lost", users, k)
		}
		require.True(t, u.add(sharedTestKey(keys)))
		u.leave()
		require.Greater(t, len(s.tab.Load().slots), keys, "the table never grew")
	}
}

// sharedTestKey is k's key: short for most k, longer than a slot holds for
// every tenth.
func sharedTestKey(k int) []byte {
	n := 8
	if k%10 == 0 {
		n = 2 * inlineKey
	}
	b := make([]byte, n)
	binary.LittleEndian.PutUint64(b, uint64(k))
	return b
}
