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
// memoizes: a later step from the same three numbers copies the resulting
// block and globals in, and its event, without running the interpreter or
// looking either up again. TestStepMemoIsExact checks, on every step of
// seeded walks over every scenario, protocol and atomicity, that a world
// with the memo goes through exactly the vectors and events of one without.
//
// The memo is used only where nothing watches a step's inside: neither
// World.Trace nor World.History is set.

// stepMemo is a program's table of GPU steps. Like interner, lookups take
// no lock and write nothing shared (entries are immutable, published with
// atomic stores); inserts take the mutex.
type stepMemo struct {
	tab atomic.Pointer[memoTable]
	mu  sync.Mutex // serializes inserts
	n   int        // entries, under mu
}

type memoTable struct {
	slots []atomic.Pointer[memoEntry] // linear probing; len is a power of 2
}

// memoKey is a step's inputs: the thread and the numbers of its block and
// of the globals before the step.
type memoKey struct{ thread, block, globals uint32 }

// memoEntry is one step: its inputs, the numbers and runs of the block and
// globals after it (the interners' own copies), and its event's numbers.
type memoEntry struct {
	key            memoKey
	block, globals uint32
	blockRun       []slot
	globalsRun     []slot
	ev             eventNums
}

func newStepMemo() *stepMemo {
	m := &stepMemo{}
	m.tab.Store(&memoTable{slots: make([]atomic.Pointer[memoEntry], 1<<8)})
	return m
}

func (k memoKey) hash() uint64 {
	h := (uint64(k.block)<<32 | uint64(k.globals)) * 0x9e3779b97f4a7c15
	h ^= uint64(k.thread) * 0xc2b2ae3d27d4eb4f
	return h ^ h>>29
}

// find is the entry for k, or nil.
func (m *stepMemo) find(k memoKey) *memoEntry {
	t := m.tab.Load()
	mask := uint64(len(t.slots) - 1)
	for i := k.hash() & mask; ; i = (i + 1) & mask {
		e := t.slots[i].Load()
		if e == nil || e.key == k {
			return e
		}
	}
}

// addOrFind stores e unless an entry for its key is there already (met
// by another goroutine meanwhile, or recalled no more under
// verifyMemoForTest), and returns the entry stored.
func (m *stepMemo) addOrFind(e *memoEntry) *memoEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.find(e.key); old != nil {
		return old
	}
	m.n++
	if g, grown := slotsWith(m.tab.Load().slots, m.n, e, e.key.hash(), func(e *memoEntry) uint64 { return e.key.hash() }); grown {
		m.tab.Store(&memoTable{slots: g})
	}
	return e
}

// eventNums is what a search's step records of an event: its numbers,
// not its texts or effects.
type eventNums struct {
	thread, module      int
	kind                EventKind
	saw, want           Value
	raised              Exc
	machinery           bool
	src                 source
	pc, code, body, sub int
	started             int
	pollText            pollText
}

func numbersOf(ev *Event) eventNums {
	return eventNums{thread: ev.Thread, module: ev.Module, kind: ev.Kind, saw: ev.Saw, want: ev.Want,
		raised: ev.Raised, machinery: ev.Machinery, src: ev.src, pc: ev.pc, code: ev.code, body: ev.body,
		sub: ev.sub, started: ev.started, pollText: ev.pollText}
}

// setNumbers makes ev's numbers n's without a pointer write. ev must hold
// no texts (resetEvent).
func (ev *Event) setNumbers(n *eventNums) {
	ev.Thread, ev.Kind = n.thread, n.kind
	ev.Module, ev.Saw, ev.Want, ev.Raised, ev.Machinery = n.module, n.saw, n.want, n.raised, n.machinery
	ev.src, ev.pc, ev.code, ev.body, ev.sub, ev.started, ev.pollText = n.src, n.pc, n.code, n.body, n.sub, n.started, n.pollText
}

// memoKeyOf is the memo's key for GPU thread t's next step from w, and
// whether the memo applies: w knows its block and globals numbers and
// nothing watches the step.
func (w *World) memoKeyOf(t int) (memoKey, bool) {
	if t == Host || w.blocks == nil || w.gnum == 0 || w.Trace || w.History != nil {
		return memoKey{}, false
	}
	b := w.blocks[t]
	return memoKey{thread: uint32(t), block: b, globals: w.gnum}, b != 0
}

// stepRecalled makes GPU thread t's step from e: the block and globals it
// left, and its event.
func (w *World) stepRecalled(t int, e *memoEntry) *Event {
	l := &w.p.lay
	w.touch(t)
	if w.infos != nil {
		if e.globals == e.key.globals { // only t's status may have changed
			w.infos[t] = stUnknown
		} else {
			w.forgetStatuses()
		}
	}
	w.blocks[t], w.gnum = e.block, e.globals
	if !w.stale && (keepVectorsForTest || !w.numbered()) {
		if e.globals != e.key.globals {
			copy(w.s[:l.threads], e.globalsRun)
		}
		base := w.thread(t)
		copy(w.s[base:base+l.threadSize], e.blockRun)
	} else {
		w.stale = true
	}
	w.resetEvent(t)
	w.ev.setNumbers(&e.ev)
	return &w.ev
}

// remember stores the step of GPU thread t from k that w has just taken
// (the memo had none, or verifyMemoForTest ran it anyway: then the two
// must agree), and sets w's numbers of the block and globals it left.
func (w *World) remember(t int, k memoKey) {
	l := &w.p.lay
	base := w.thread(t)
	block, globals := w.p.blocks.entry(w.s[base:base+l.threadSize]), w.p.globals.entry(w.s[:l.threads])
	e := &memoEntry{key: k, block: block.num, globals: globals.num,
		blockRun: block.run, globalsRun: globals.run, ev: numbersOf(&w.ev)}
	// The interners' numbers stand for the runs (a bijection).
	if old := w.p.steps.addOrFind(e); verifyMemoForTest && (old.block != e.block || old.globals != e.globals || old.ev != e.ev) {
		panic("model: a GPU step differs from the memo's step from the same thread, block and globals")
	}
	w.blocks[t], w.gnum = e.block, e.globals
}

// verifyMemoForTest, when set, makes every step the memo could recall run
// the interpreter instead and panic unless the memo agrees.
var verifyMemoForTest bool
