package model

// PeekWord is what CompactWord would say of w after GPU thread t's step,
// and that step's event (shared: not to be modified), when the memo
// recalls the step from w's numbers; ok is false when it does not (the
// step must be taken). w does not change. A depth-first search peeks at
// every child of a state this way and makes only those it has not seen
// (sched.WordPeeker).
func (w *World) PeekWord(t int) (word uint64, ev *Event, ok bool) {
	k, memo := w.memoKeyOf(t)
	if !memo || !w.stale && !w.numbered() { // a stale world is numbered
		return 0, nil, false
	}
	value, _, id, found := w.p.steps.find(k)
	if !found {
		return 0, nil, false
	}
	// the numbers after the step: its globals, and t's block
	x, fits := packUvarints(uint32(value), w.blocks, t, uint32(value>>32))
	if !fits {
		return 0, nil, false
	}
	return x, w.p.events.event(id), true
}
