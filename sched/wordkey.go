package sched

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// Word keys: the visited sets store a key of one to eight nonzero bytes
// packed in a word (see visitedSet), and a Compact system gives its key
// so (CompactWord) by packing uvarints with PackUvarint.

// WordKey packs key into a word and reports whether it is a word key: one
// to eight bytes, none zero, so that the packing (little-endian, zero
// above the key) is one to one and never 0. A compact key, a string of
// uvarints of positive numbers, has no zero byte. (A Compact system's
// CompactWord must agree with it: PackUvarint packs so.)
func WordKey(key []byte) (uint64, bool) {
	if len(key) == 0 || len(key) > 8 {
		return 0, false
	}
	var x uint64
	if cap(key) >= 8 { // one load (little-endian, as binary would read it), masked to the key
		x = *(*uint64)(unsafe.Pointer(unsafe.SliceData(key)))
		if !littleEndian {
			x = bits.ReverseBytes64(x)
		}
		x &= ^uint64(0) >> (64 - 8*len(key))
	} else {
		var b [8]byte
		copy(b[:], key)
		x = binary.LittleEndian.Uint64(b[:])
	}
	// The lowest byte flagged is x's lowest zero byte (a borrow only
	// flags bytes above a zero one).
	zeros := (x - 0x0101010101010101) &^ x & 0x8080808080808080
	return x, bits.TrailingZeros64(zeros)/8 == len(key)
}

// littleEndian: the machine stores a word's low byte first.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// unpackWord is the key that WordKey packed into x.
func unpackWord(x uint64, buf *[8]byte) []byte {
	binary.LittleEndian.PutUint64(buf[:], x)
	return buf[:(bits.Len64(x)+7)/8]
}

// PackUvarint puts n's uvarint above the shift bits of x, if it fits in
// the word, and returns the word and its bits: byte for byte,
// little-endian, what binary.AppendUvarint writes, so that a compact key
// of uvarints packed from shift 0 up is WordKey of its bytes. It is small
// enough to inline.
func PackUvarint(x uint64, shift uint, n uint32) (uint64, uint, bool) {
	for ; n >= 0x80; n >>= 7 {
		if shift >= 64 {
			return 0, 0, false
		}
		x |= uint64(n&0x7f|0x80) << (shift & 63) // below 64, as tested
		shift += 8
	}
	if shift >= 64 {
		return 0, 0, false
	}
	return x | uint64(n)<<(shift&63), shift + 8, true
}
