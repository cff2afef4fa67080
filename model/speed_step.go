package model

// Step runs thread t's next step (t must be runnable), then the local steps
// that follow it, and returns what the step did: w's own record, valid
// until w steps again (copy it to keep it; a search's hot loop reads it in
// place).
//
// What a step means is interpret's (interp.go). Step wraps it in the
// speed machinery, which changes what a step costs and nothing of what it
// does: the memo recalls a GPU step it has met from the same numbers
// instead of interpreting it (speed_memo.go), a stale world's vector is brought
// up to date before the interpreter reads it (speed_lazy.go), and what w.cache
// knew of the parts the step may have changed is forgotten (forget).
// TestStepMemoIsExact and check's TestSpeedMachineryChangesNothing check
// that searches report the same with the machinery and without.
func (w *World) Step(t int) *Event {
	w.cache.fut = nil // it held the futures of the state before (UseFuturesScratch)
	k, memo := w.memoKeyOf(t)
	if memo && !debug.verifyMemo {
		if value, aux, word, ok := w.p.steps.find(k); ok {
			return w.stepRecalled(t, k, value, aux, word)
		}
	}
	w.sync()
	w.interpret(t)
	w.forget(t)
	if memo {
		w.remember(t, k)
	}
	return &w.cache.ev
}

// forget drops what w.cache knew of the parts of the vector that thread
// t's step, just interpreted, may have changed: the numbers of its block
// and of the globals, every thread's status, and, for the host's step,
// what it wrote of other threads (forgetHostWrites).
func (w *World) forget(t int) {
	w.touch(t)
	w.forgetStatuses()
	if w.p.isHost(t) {
		w.forgetHostWrites()
	}
	if s := w.p.signal; s >= 0 {
		// the host's steps arm the interrupt, and the interrupt moves the host
		if t == s {
			w.touch(Host)
			w.forgetHostWrites() // it may end a launch's threads (endUnstarted)
		} else if w.p.isHost(t) || w.cache.ev.Fault != 0 {
			w.touch(s)
		}
	}
}

// touch forgets what w.cache knew of the parts of the vector a step of
// thread t may have changed: the globals and the thread's own slots, or,
// for the host (which starts and polls threads), perhaps any thread's.
// For the host's step it forgets its own block's number and the globals'
// here, and the numbers of the other blocks it wrote in forgetHostWrites.
func (w *World) touch(t int) {
	if c := w.cache.canon; c != nil {
		c.fresh[t] = false
	}
	w.cache.gnum = 0
	if w.cache.blocks != nil {
		w.setBlock(t, 0)
	}
}

// forgetHostWrites forgets the numbers of the blocks, and the canonical
// key's part numbers, of the threads that the host's step just interpreted
// (see touch) wrote, other than itself: the thread it started (sStart,
// ev.started), and, when a poll aborted or released a block, all of them.
// The host only reads the others, so their numbers stand: it decides
// to keep them because numbering them again (a hash and a probe of the
// table for each block) cost the States search of merged 7% of its
// instructions (cachegrind's count, as scripts/instructions.sh takes it;
// see docs/performance.md). TestCompactKeyIsExact and the
// canonical key's tests check every number kept so against a fresh
// lookup (debug.verifyCanon).
func (w *World) forgetHostWrites() {
	all := w.cache.ev.pollText == pollAbort || w.cache.ev.pollText == pollRelease || w.cache.ev.skipped
	if c := w.cache.canon; c != nil {
		if all {
			clear(c.fresh)
		} else if w.cache.ev.started != Host {
			c.fresh[w.cache.ev.started] = false
		}
	}
	switch {
	case w.cache.blocks == nil:
	case all:
		clear(w.cache.blocks)
		w.cache.packed = 0
	case w.cache.ev.started != Host:
		w.setBlock(w.cache.ev.started, 0)
	}
}
