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
	// runs[n-1] is run number n (see run): a slice that only grows, each
	// longer header published after its new element is written.
	runs atomic.Pointer[[][]slot]
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
	in.runs.Store(new([][]slot))
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
	// Published before the entry, so whoever has the number finds the run.
	runs := append(*in.runs.Load(), e.run)
	in.runs.Store(&runs)
	if g, grown := slotsWith(t.slots, int(in.n), e); grown {
		in.tab.Store(&internTable{slots: g})
	}
	return e
}

// run is the run numbered n, which must have been numbered (a number got
// from the interner or from an entry published after it). Entries below
// an old header's length are never written again, so readers need no lock.
func (in *interner) run(n uint32) []slot { return (*in.runs.Load())[n-1] }

func (t *internTable) find(h uint64, run []slot) *internEntry {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := t.slots[i].Load()
		if e == nil || e.hash == h && string(slotBytes(e.run)) == string(slotBytes(run)) {
			return e
		}
	}
}

// slotsWith adds e to slots, which holds n-1 entries, and returns the
// slots that hold them all: slots itself, or when n entries would fill
// more than half of it, new slots twice as many (grown), which the caller
// publishes. It runs under the interner's mutex; readers probe without
// one, so each entry is whole before its atomic store.
func slotsWith(slots []atomic.Pointer[internEntry], n int, e *internEntry) (_ []atomic.Pointer[internEntry], grown bool) {
	if n*2 > len(slots) {
		g := make([]atomic.Pointer[internEntry], 2*len(slots))
		for i := range slots {
			if old := slots[i].Load(); old != nil {
				insertSlot(g, old)
			}
		}
		slots, grown = g, true
	}
	insertSlot(slots, e)
	return slots, grown
}

// insertSlot stores e in the first free slot of its probe sequence.
func insertSlot(slots []atomic.Pointer[internEntry], e *internEntry) {
	mask := uint64(len(slots) - 1)
	i := e.hash & mask
	for slots[i].Load() != nil {
		i = (i + 1) & mask
	}
	slots[i].Store(e)
}
