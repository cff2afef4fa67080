package model

import "swapcheck/sched"

// PeekWord is what CompactWord would say of w after GPU thread t's step,
// and that step's event (shared: not to be modified), when the memo
// recalls the step from w's numbers; ok is false when it does not (the
// step must be taken). w does not change. A depth-first search peeks at
// every child of a state this way and makes only those it has not seen
// (sched.WordPeeker), with TakePeeked and the note PeekWord gives: the
// memo's value of the step and t's status after it.
func (w *World) PeekWord(t int) (word uint64, note sched.PeekNote, ev *Event, ok bool) {
	if !w.peekable(t) {
		return w.peekFresh(t)
	}
	// memoKeyOf's key, most often: a stale world is numbered
	return w.peekAt(t, w.cache.blocks[t], w.cache.gnum)
}

// TakePeeked makes w a copy of parent after GPU thread t's step, which
// parent's PeekWord(t) recalled and noted in note: the step's numbers and
// t's status, without its event (w's record of its last step is not
// written; nothing reads it of a state a search made so).
func (w *World) TakePeeked(parent *World, t int, note sched.PeekNote) {
	w.CopyFrom(parent)
	w.applyRecalled(t, w.cache.gnum, note.A, note.B)
}

// PeekAgain is PeekWord(t) of the world that TakePeeked(w, t, note) would
// make, told from w without making it: the word, note and event of GPU
// thread t's step after the step that PeekWord(t) noted in note. ok is
// false where PeekWord would say so, or where w is not stale.
func (w *World) PeekAgain(t int, note sched.PeekNote) (word uint64, again sched.PeekNote, ev *Event, ok bool) {
	if !w.peekable(t) {
		return 0, again, nil, false
	}
	// the child's numbers: t's block and the globals after the first step
	return w.peekAt(t, uint32(note.A>>32), uint32(note.A))
}

// peekFresh is PeekWord(t) of a world that is not stale: it peeks only
// where the memo applies (memoKeyOf) and w is numbered.
func (w *World) peekFresh(t int) (word uint64, note sched.PeekNote, ev *Event, ok bool) {
	k, ok := w.memoKeyOf(t)
	if !ok || !w.numbered() {
		return 0, note, nil, false
	}
	return w.peekAt(t, k.block, k.globals)
}

// peekAt is the peek of GPU thread t's step from t's block number block
// and globals number globals: the memo's word, note and event of the
// step, if it holds the step and its word fits. PeekWord and PeekAgain
// check their keys in wrappers small enough to inline, so that a
// search's peek is one call, of peekAt: tuned with
// scripts/instructions.sh, where a helper behind a larger PeekWord cost 21
// more instructions a step.
func (w *World) peekAt(t int, block, globals uint32) (word uint64, note sched.PeekNote, ev *Event, ok bool) {
	value, aux, id, found := w.p.steps.find(memoKey{thread: uint32(t), block: block, globals: globals})
	if !found {
		return 0, note, nil, false
	}
	x, fits := w.packPeeked(t, value, aux)
	if !fits {
		x, fits = w.packWord(uint32(value), t, uint32(value>>32))
	}
	if !fits {
		return 0, note, nil, false
	}
	return x, sched.PeekNote{A: value, B: aux}, w.p.events.event(id), true
}

// peekable reports whether a peek at GPU thread t's step may take its memo
// key from w's numbers as they are: w is stale (so numbered), and keeps
// no trace or history, which a recalled step would not write.
func (w *World) peekable(t int) bool {
	return w.cache.stale && !w.p.isHost(t) && t != w.p.signal && t != w.p.raiser && !w.Trace && w.History == nil
}
