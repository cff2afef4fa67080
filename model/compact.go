package model

import (
	"encoding/binary"
	"fmt"
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
	p, l := w.p, &w.p.lay
	if verifyCanonForTest {
		w.sync()
	}
	if w.stale { // numbered
		return w.appendNumbers(b)
	}
	if w.blocks == nil {
		w.blocks = make([]uint32, p.NumThreads())
	}
	base := l.threads
	for t, n := range w.blocks {
		if n == 0 {
			w.blocks[t] = p.blocks.number(w.s[base : base+l.threadSize])
		} else if verifyCanonForTest {
			if m := p.blocks.number(w.s[base : base+l.threadSize]); m != n {
				panic(fmt.Sprintf("model: thread %d's block is number %d, but the compact key's scratch says %d: a change to the vector did not unset it", t, m, n))
			}
		}
		base += l.threadSize
	}
	if w.gnum == 0 {
		w.gnum = p.globals.number(w.s[:l.threads])
	} else if verifyCanonForTest {
		if m := p.globals.number(w.s[:l.threads]); m != w.gnum {
			panic(fmt.Sprintf("model: the globals are number %d, but the compact key's scratch says %d: a change to the vector did not unset it", m, w.gnum))
		}
	}
	return w.appendNumbers(b)
}

// appendNumbers appends the compact key of a numbered world.
func (w *World) appendNumbers(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(w.gnum))
	for _, n := range w.blocks {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}
