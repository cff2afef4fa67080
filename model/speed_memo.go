package model

import (
	"sync"
	"sync/atomic"
)

// A GPU thread's step reads and writes only its own slot block and the
// shared part of the vector (globals, registries, locks, the kernel
// context: s[:lay.threads]); only the host's steps start, poll and release
// other threads. So once a search knows the numbers of a state's block and
// globals (the compact key's tables), the step of GPU thread t is a
// function of (t, block number, globals number), which the program
// memoizes: a later step from the same three numbers takes the resulting
// numbers (and, unless the world is stale, see speed_lazy.go, copies their runs
// in), its event and t's status after it, without running the interpreter
// or looking anything up again. TestStepMemoIsExact checks, on every step
// of seeded walks over every scenario, protocol and atomicity, that a
// world with the memo goes through exactly the vectors, events and
// runnable threads of one without.
//
// The memo is used only where nothing watches a step's inside: neither
// World.Trace nor World.History is set.

// memo is a program's table of what GPU threads do from a block and
// globals: their steps (Program.steps) or their statuses
// (Program.statuses, see speed_lazy.go), keyed by memoKey. Like interner,
// lookups take no lock and write nothing shared; inserts take the mutex.
// An entry is four words in the table itself, half a cache line, so a
// lookup reads one line and follows no pointer: the key's numbers, two
// words of value, then a tag (the thread and a nonzero word) published
// last, 0 until then and never changed after. A step's value is the
// numbers of the block and globals it leaves, its aux the thread's
// statusInfo then (the low 32 bits) and the uvarint of the globals'
// number it leaves (globalsUvarint), its word the number of its event
// (events); keeping the status after the step in the entry spares a
// recalled step a status lookup (tuned with BenchmarkExhaustiveMerged5,
// 2% faster; see docs/performance.md). Growing builds a new table and
// swaps the pointer, so a reader holding the old one only misses the
// newest entries (and, for a step, runs it).
type memo struct {
	tab atomic.Pointer[[]memoSlot] // linear probing; len is a power of 2
	mu  sync.Mutex                 // serializes inserts
	n   int                        // entries, under mu
}

type memoSlot struct{ numbers, value, aux, tag atomic.Uint64 }

// memoKey is a step's inputs: the thread and the numbers of its block and
// of the globals before the step.
type memoKey struct{ thread, block, globals uint32 }

func (k memoKey) numbers() uint64 { return uint64(k.block)<<32 | uint64(k.globals) }

func newMemo() *memo {
	m := &memo{}
	slots := make([]memoSlot, 1<<8)
	m.tab.Store(&slots)
	return m
}

// hash is murmur3's finalizer of k's numbers and thread.
func (k memoKey) hash() uint64 {
	h := k.numbers() ^ uint64(k.thread)*0x9e3779b97f4a7c15
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// find is the value, aux and word stored for k.
func (m *memo) find(k memoKey) (value, aux uint64, word uint32, ok bool) {
	slots := *m.tab.Load()
	mask := uint64(len(slots) - 1)
	nums := k.numbers()
	for i := k.hash() & mask; ; i = (i + 1) & mask {
		s := &slots[i] // one bounds check, not three
		tag := s.tag.Load()
		if tag == 0 {
			return 0, 0, 0, false
		}
		if uint32(tag>>32) == k.thread && s.numbers.Load() == nums {
			return s.value.Load(), s.aux.Load(), uint32(tag), true
		}
	}
}

// addOrFind stores value, aux and word (nonzero) for k unless the memo has
// an entry for k already (met by another goroutine meanwhile, or recalled
// no more under debug.verifyMemo), and returns what it holds for k.
func (m *memo) addOrFind(k memoKey, value, aux uint64, word uint32) (uint64, uint64, uint32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, a, w, ok := m.find(k); ok {
		return v, a, w
	}
	slots := *m.tab.Load()
	if m.n++; m.n*2 > len(slots) {
		g := make([]memoSlot, 2*len(slots))
		for i := range slots {
			if tag := slots[i].tag.Load(); tag != 0 {
				n := slots[i].numbers.Load()
				insertMemo(g, memoKey{thread: uint32(tag >> 32), block: uint32(n >> 32), globals: uint32(n)}, slots[i].value.Load(), slots[i].aux.Load(), tag)
			}
		}
		m.tab.Store(&g)
		slots = g
	}
	insertMemo(slots, k, value, aux, uint64(k.thread)<<32|uint64(word))
	return value, aux, word
}

// insertMemo publishes an entry in the first free slot of k's probe
// sequence.
func insertMemo(slots []memoSlot, k memoKey, value, aux, tag uint64) {
	mask := uint64(len(slots) - 1)
	i := k.hash() & mask
	for slots[i].tag.Load() != 0 {
		i = (i + 1) & mask
	}
	slots[i].numbers.Store(k.numbers())
	slots[i].value.Store(value)
	slots[i].aux.Store(aux)
	slots[i].tag.Store(tag)
}

// events numbers the distinct EventNumbers of memoized steps (a few
// hundred), so that a step's entry names its event in a word. byID is
// append-only, each longer header published after its new element is
// written; its Events have numbers and no texts, and PeekWord hands them
// out.
type events struct {
	mu   sync.Mutex
	ids  map[EventNumbers]uint32 // under mu
	byID atomic.Pointer[[]Event]
}

func newEvents() *events {
	e := &events{ids: map[EventNumbers]uint32{}}
	e.byID.Store(new([]Event))
	return e
}

// id is n's number, from 1, given one if n is new.
func (e *events) id(n EventNumbers) uint32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if id, ok := e.ids[n]; ok {
		return id
	}
	list := append(*e.byID.Load(), Event{EventNumbers: n})
	e.byID.Store(&list)
	e.ids[n] = uint32(len(list))
	return uint32(len(list))
}

// event is the Event numbered id, not to be modified.
func (e *events) event(id uint32) *Event { return &(*e.byID.Load())[id-1] }

// memoKeyOf is the memo's key for GPU thread t's next step from w, and
// whether the memo applies: w knows its block and globals numbers and
// nothing watches the step.
func (w *World) memoKeyOf(t int) (memoKey, bool) {
	if w.p.isHost(t) || t == w.p.signal || t == w.p.raiser || w.cache.blocks == nil || w.cache.gnum == 0 || w.Trace || w.History != nil || w.p.armedIn(w.cache.gnum) {
		return memoKey{}, false
	}
	b := w.cache.blocks[t]
	return memoKey{thread: uint32(t), block: b, globals: w.cache.gnum}, b != 0
}

// stepRecalled makes GPU thread t's step from k, which the memo holds
// (value, aux and word): the block and globals it left, t's status then,
// and its event.
func (w *World) stepRecalled(t int, k memoKey, value, aux uint64, word uint32) *Event {
	w.applyRecalled(t, k.globals, value, aux)
	w.clearEventTexts()
	w.cache.ev.EventNumbers = w.p.events.event(word).EventNumbers
	return &w.cache.ev
}

// applyRecalled makes the changes of GPU thread t's step from globals
// number globals that the memo holds (value and aux): the block and
// globals it left, and t's status then (aux's low half; its high half is
// for PeekWord).
func (w *World) applyRecalled(t int, globals uint32, value, aux uint64) {
	l := &w.p.lay
	block, after := uint32(value>>32), uint32(value)
	// touch(t), but for its block's and the globals' numbers, which are
	// set below to the step's (t is a GPU thread, whose step changes only
	// those)
	if c := w.cache.canon; c != nil {
		c.fresh[t] = false
	}
	if w.cache.infos != nil {
		if after != globals { // else only t's status may have changed
			w.forgetGlobalsStatuses()
		}
		w.cache.infos[t] = statusInfo(aux)
	}
	w.setBlock(t, block)
	w.cache.gnum = after
	if !w.cache.stale && (debug.keepVectors || !w.numbered()) {
		if after != globals {
			copy(w.s[:l.threads], w.p.globals.run(after))
		}
		base := w.thread(t)
		copy(w.s[base:base+l.threadSize], w.p.blocks.run(block))
	} else {
		w.cache.stale = true
	}
}

// remember stores the step of GPU thread t from k that w has just taken
// (the memo had none, or debug.verifyMemo ran it anyway: then the two
// must agree), and sets w's numbers of the block and globals it left.
func (w *World) remember(t int, k memoKey) {
	l := &w.p.lay
	base := w.thread(t)
	block, globals := w.p.blocks.number(w.s[base:base+l.threadSize]), w.p.globals.number(w.s[:l.threads])
	value, ev := uint64(block)<<32|uint64(globals), w.p.events.id(w.cache.ev.EventNumbers)
	status := uint64(w.statusOf(t))
	if w.readsGlobals(t) {
		status |= uint64(stGlobalsRead)
	}
	status |= globalsUvarint(globals)
	// The interners' numbers stand for the runs (a bijection), the
	// events' for the events.
	if oldValue, oldStatus, oldEv := w.p.steps.addOrFind(k, value, status, ev); debug.verifyMemo && (oldValue != value || oldStatus != status || oldEv != ev) {
		panic("model: a GPU step differs from the memo's step from the same thread, block and globals")
	}
	w.setBlock(t, block)
	w.cache.gnum = globals
}
