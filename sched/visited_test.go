package sched

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The visited set answers as a map of its keys would: short keys kept in
// their slots, long ones in chunks, through growth, and with every hash
// colliding (so only the bytes can tell keys apart).
func TestVisitedSetIsASet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		collide := rapid.Bool().Draw(t, "collide")
		// few distinct bytes, so keys repeat and share prefixes
		keys := rapid.SliceOfN(rapid.SliceOfN(rapid.ByteRange(0, 2), 0, 3*inlineKey), 1, 3000).Draw(t, "keys")
		s := newVisitedSet(1)
		s.collideForTest = collide
		v := s.join()
		want := map[string]bool{}
		add := v.add
		for _, k := range keys {
			require.Equal(t, !want[string(k)], add(k), "key %v", k)
			want[string(k)] = true
		}
		stored := 0
		for i := range s.tab.Load().slots {
			if s.tab.Load().slots[i].n.Load() != 0 {
				stored++
			}
		}
		require.Equal(t, len(want), stored)
		for k := range want {
			require.False(t, add([]byte(k)), "stored key %v lost", []byte(k))
		}
	})
}
