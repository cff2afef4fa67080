package model

import (
	"encoding/binary"
	"fmt"

	"swapcheck/sched"
)

// AppendCompactKey appends an encoding of exactly w's state, shorter than
// AppendKey's: equal keys mean equal vectors, and conversely. It is the
// exact searches' key (sched.Compact); unlike AppendCanonicalKey it merges
// no two states.
//
// The globals, registries and lock owners come as their number in the
// program's table of those met so far, then each thread's whole slot block
// as its number in the table of blocks (uvarints; SPIN's COLLAPSE: each
// table is a bijection). Merged with 5 threads keys in 7 bytes. A thread's block changes only by its own
// steps or the host's (see touch), so a search that copies a state and
// steps one thread looks one block up.
//
// As for AppendCanonicalKey, w's vector must change only through w's own
// methods.
func (w *World) AppendCompactKey(b []byte) []byte {
	w.number()
	return w.appendNumbers(b)
}

// CompactWord is the compact key packed in a word as sched.WordKey packs
// it, and whether it fits (eight bytes at most), without writing its
// bytes (sched.Compact): the exact searches' key for up to five GPU
// threads of merged.
func (w *World) CompactWord() (uint64, bool) {
	w.number()
	return w.packWord(w.cache.gnum, -1, 0)
}

// setBlock makes n the number of thread t's block (0: not known), in
// blocks and in packed.
func (w *World) setBlock(t int, n uint32) {
	w.cache.blocks[t] = n
	if t < 8 {
		w.cache.packed = withByte(w.cache.packed, t, n)
	}
}

// withByte is y, packed blocks' numbers, with thread t's byte (t below 8)
// holding number n as packed holds it.
func withByte(y uint64, t int, n uint32) uint64 {
	sh := uint(8*t) & 63 // & 63: the compiler then needs no check of the shift
	return y&^(0xff<<sh) | uint64(min(n, 0x80))<<sh
}

// packedOf is what packed holds for blocks.
func packedOf(blocks []uint32) uint64 {
	var y uint64
	for t, n := range blocks[:min(len(blocks), 8)] {
		y = withByte(y, t, n)
	}
	return y
}

// packWord is packUvarints(g, w.cache.blocks, at, n) of a numbered world: the
// compact key of globals number g and w's blocks, with thread at's taken
// to be n (at -1: none; PeekWord packs the numbers a step would leave
// so). Most often every block's number is below 0x80, one byte each
// (merged with 5 threads meets 116 blocks, but 284 globals), and packed
// holds them as the key does: it is then the globals' uvarint and
// packed above it, with at's byte replaced, and no loop over the
// threads.
func (w *World) packWord(g uint32, at int, n uint32) (uint64, bool) {
	x, shift, _ := sched.PackUvarint(0, 0, g) // at most five bytes
	if word, ok := w.packAbove(x, shift, at, n); ok {
		return word, true
	}
	return packUvarints(g, w.cache.blocks, at, n)
}

// packAbove is packWord's short way, from x, the globals' uvarint
// packed, and shift, its bytes' bits: ok is false where it does not
// apply (some block's number is 0x80 or more, or the bytes do not fit),
// and packUvarints must pack the key. It is small enough to inline.
func (w *World) packAbove(x uint64, shift uint, at int, n uint32) (word uint64, ok bool) {
	y := w.cache.packed
	if at >= 0 && at < 8 {
		y = withByte(y, at, n)
	}
	// The bytes fit (so there are at most seven threads, each with a
	// byte of packed) and none is 0x80 or more.
	if shift+8*uint(len(w.cache.blocks)) <= 64 && y&0x8080808080808080 == 0 {
		return x | y<<(shift&63), true // shift is 40 at most
	}
	return 0, false
}

// packPeeked is packWord's short way (packAbove) for the numbers GPU
// thread t's step leaves, which the memo holds in value (t's block and
// the globals) and aux (the globals' uvarint, most often: see
// globalsUvarint); where ok is false, packWord must pack them.
func (w *World) packPeeked(t int, value, aux uint64) (word uint64, ok bool) {
	g := aux >> 32
	x, ok := w.packAbove(g&0xffffff, uint(g>>24)*8, t, uint32(value>>32))
	return x, ok && g>>24 != 0
}

// globalsUvarint is globals number g's uvarint for a step's aux in the
// memo: bits 32 to 55 the uvarint's bytes, as packUvarint packs them,
// bits 56 and 57 how many bytes there are. A number of more than three
// bytes (from 2^21) gets 0, and PeekWord then packs it with packWord.
func globalsUvarint(g uint32) uint64 {
	if g >= 1<<21 {
		return 0
	}
	x, shift, _ := sched.PackUvarint(0, 0, g)
	return (x | uint64(shift/8)<<24) << 32
}

// packUvarints packs first's uvarint and then rest's, if they fit, with
// rest[at] taken to be n (at -1: none).
func packUvarints(first uint32, rest []uint32, at int, n uint32) (uint64, bool) {
	x, shift, ok := sched.PackUvarint(0, 0, first)
	for i, m := range rest {
		if !ok {
			return 0, false
		}
		if i == at {
			m = n
		}
		x, shift, ok = sched.PackUvarint(x, shift, m)
	}
	return x, ok
}

// number makes w numbered: it numbers every block and the globals that
// it has no number for.
func (w *World) number() {
	p, l := w.p, &w.p.lay
	if debug.verifyCanon {
		w.sync()
	}
	if w.cache.stale { // numbered
		return
	}
	if w.cache.blocks == nil {
		w.cache.blocks = w.newBlocks()
	}
	if debug.verifyCanon && w.cache.packed != packedOf(w.cache.blocks) {
		panic(fmt.Sprintf("model: the packed block numbers are %#x, but the blocks' numbers %v pack as %#x: a change to blocks did not go through setBlock", w.cache.packed, w.cache.blocks, packedOf(w.cache.blocks)))
	}
	base := l.threads
	for t, n := range w.cache.blocks {
		if n == 0 {
			w.setBlock(t, p.blocks.number(w.s[base:base+l.threadSize]))
		} else if debug.verifyCanon {
			if m := p.blocks.number(w.s[base : base+l.threadSize]); m != n {
				panic(fmt.Sprintf("model: thread %d's block is number %d, but the compact key's scratch says %d: a change to the vector did not unset it", t, m, n))
			}
		}
		base += l.threadSize
	}
	if w.cache.gnum == 0 {
		w.cache.gnum = p.globals.number(w.s[:l.threads])
	} else if debug.verifyCanon {
		if m := p.globals.number(w.s[:l.threads]); m != w.cache.gnum {
			panic(fmt.Sprintf("model: the globals are number %d, but the compact key's scratch says %d: a change to the vector did not unset it", m, w.cache.gnum))
		}
	}
}

// appendNumbers appends the compact key of a numbered world.
func (w *World) appendNumbers(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(w.cache.gnum))
	for _, n := range w.cache.blocks {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}
