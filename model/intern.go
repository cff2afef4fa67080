package model

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
)

// interner numbers distinct runs of slots (a thread's slots or its live
// part, or the globals) from 1 up, in the order they are met: SPIN's
// COLLAPSE table. It is
// a bijection, so a number stands for its run in a key.
//
// Searches on several goroutines share one interner, and every step looks
// a run up, so lookups take no lock and write nothing shared: the table is
// an immutable-entry hash table behind an atomic pointer. Inserts take the
// mutex and publish each entry with an atomic store; growing builds a new
// table and swaps the pointer, so a reader holding the old one only misses
// the newest runs and finds them under the mutex.
type interner struct {
	seed maphash.Seed
	tab  atomic.Pointer[internTable]
	mu   sync.Mutex // serializes inserts
	n    uint32     // runs numbered so far, under mu
}

type internTable struct {
	slots []atomic.Pointer[internEntry] // linear probing; len is a power of 2
}

type internEntry struct {
	hash uint64
	num  uint32
	run  []slot
}

func newInterner() *interner {
	in := &interner{seed: maphash.MakeSeed()}
	in.tab.Store(&internTable{slots: make([]atomic.Pointer[internEntry], 1<<8)})
	return in
}

// number is run's number, given one if run is new. run is not kept.
func (in *interner) number(run []slot) uint32 { return in.entry(run).num }

// entry is run's entry (its number, and a copy of run that never
// changes), made if run is new. run is not kept.
func (in *interner) entry(run []slot) *internEntry {
	h := maphash.Bytes(in.seed, slotBytes(run))
	if e := in.tab.Load().find(h, run); e != nil {
		return e
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	t := in.tab.Load()
	if e := t.find(h, run); e != nil {
		return e // numbered by another goroutine meanwhile
	}
	in.n++
	e := &internEntry{hash: h, num: in.n, run: slices.Clone(run)}
	if int(in.n)*2 > len(t.slots) {
		g := &internTable{slots: make([]atomic.Pointer[internEntry], 2*len(t.slots))}
		for i := range t.slots {
			if old := t.slots[i].Load(); old != nil {
				g.insert(old)
			}
		}
		t = g
		in.tab.Store(t)
	}
	t.insert(e)
	return e
}

func (t *internTable) find(h uint64, run []slot) *internEntry {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := t.slots[i].Load()
		if e == nil || e.hash == h && string(slotBytes(e.run)) == string(slotBytes(run)) {
			return e
		}
	}
}

// insert places e in the first free slot of its probe sequence (under the
// interner's mutex; the table is at most half full).
func (t *internTable) insert(e *internEntry) {
	mask := uint64(len(t.slots) - 1)
	i := e.hash & mask
	for t.slots[i].Load() != nil {
		i = (i + 1) & mask
	}
	t.slots[i].Store(e)
}
