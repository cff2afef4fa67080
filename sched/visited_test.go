package sched

import (
	"slices"
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
		// few distinct bytes, so keys repeat and share prefixes; zero
		// bytes and long keys, which are not word keys, only sometimes
		low := rapid.ByteRange(0, 1).Draw(t, "low")
		long := rapid.SampledFrom([]int{3, 8, 9, 3 * inlineKey}).Draw(t, "long")
		keys := rapid.SliceOfN(rapid.SliceOfN(rapid.ByteRange(low, low+2), 0, long), 1, 3000).Draw(t, "keys")
		s := newVisitedSet(1, nil)
		s.collideForTest = collide
		v := s.join()
		want := map[string]bool{}
		add := v.add
		for _, k := range keys {
			require.Equal(t, !want[string(k)], add(k), "key %v", k)
			want[string(k)] = true
		}
		require.Equal(t, len(want), s.tab.Load().stored())
		for k := range want {
			require.False(t, add([]byte(k)), "stored key %v lost", []byte(k))
		}
	})
}

// WordKey packs exactly the keys of one to eight nonzero bytes, one to
// one, never to 0, and unpackWord gives the key back.
func TestWordKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.SliceOfN(rapid.ByteRange(0, 3), 0, 10)
		a, b := gen.Draw(t, "a"), gen.Draw(t, "b")
		x, okA := WordKey(a)
		y, okB := WordKey(b)
		require.Equal(t, len(a) >= 1 && len(a) <= 8 && !slices.Contains(a, 0), okA)
		// the same key in a buffer with room (and junk) past it: WordKey
		// then loads 8 bytes at once and must mask the junk off
		roomy := append(slices.Clone(a), 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8)[:len(a)]
		x2, ok2 := WordKey(roomy)
		require.Equal(t, okA, ok2)
		require.Equal(t, x, x2)
		if !okA {
			return
		}
		require.NotZero(t, x)
		var buf [8]byte
		require.Equal(t, a, unpackWord(x, &buf))
		if okB {
			require.Equal(t, string(a) == string(b), x == y)
		}
	})
}
