package sched_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// PackUvarint, from shift 0 up, packs positive numbers' uvarints as
// WordKey packs their bytes, and fits them exactly when they are eight
// bytes or fewer.
func TestPackUvarintIsWordKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		number := rapid.OneOf(rapid.Uint32Range(1, 0x7f), rapid.Uint32Range(1, 1<<14), rapid.Uint32Min(1))
		nums := rapid.SliceOfN(number, 1, 9).Draw(t, "numbers")
		var b []byte
		var x uint64
		var shift uint
		ok := true
		for _, n := range nums {
			b = binary.AppendUvarint(b, uint64(n))
			if ok {
				x, shift, ok = sched.PackUvarint(x, shift, n)
			}
		}
		want, wantOK := sched.WordKey(b)
		require.Equal(t, wantOK, ok, "key %x", b)
		if ok {
			require.Equal(t, want, x, "key %x", b)
			require.Equal(t, 8*uint(len(b)), shift, "key %x", b)
		}
	})
}
