package model

import (
	"slices"

	"swapcheck/sched"
)

// A search with compact keys numbers every thread's block and the globals
// (AppendCompactKey, CompactWord), and the memo then recalls a GPU step
// from those numbers alone (Program.steps). Such a world need not keep its
// vector current: a recalled step only changes two numbers, copying the
// world copies the numbers, and the statuses of its threads are recalled
// too (Program.statuses). The world is then stale: the numbers are its
// state and w.s is out of date. Whatever reads the vector first calls
// sync, which writes the numbered runs back into it; a step the memo
// lacks, a host's step, a trace, a final check or a key of the vector all
// do. TestStaleWorldsSearchAlike checks that searches report the same
// with stale worlds as without.

// numbered reports whether w knows the number of every block and of the
// globals.
func (w *World) numbered() bool {
	if w.cache.gnum == 0 || w.cache.blocks == nil {
		return false
	}
	for _, n := range w.cache.blocks {
		if n == 0 {
			return false
		}
	}
	return true
}

// sync brings w's vector up to date, if it is stale.
func (w *World) sync() {
	if w.cache.stale {
		w.vectorInto(w.s)
		w.cache.stale = false
	}
}

// vectorInto writes w's vector into dst: a copy, or the numbered runs when
// w is stale. w itself does not change.
func (w *World) vectorInto(dst []slot) {
	if !w.cache.stale {
		copy(dst, w.s)
		return
	}
	l := &w.p.lay
	copy(dst[:l.threads], w.p.globals.run(w.cache.gnum))
	base := l.threads
	for _, n := range w.cache.blocks {
		copy(dst[base:base+l.threadSize], w.p.blocks.run(n))
		base += l.threadSize
	}
}

// The status memo (Program.statuses) holds threads' statuses: thread t's
// status, and whether it is ready, is a function of t's block and the
// globals, except the readiness of a poll, which it records as such. Most
// statuses depend on the block alone (readsGlobals), and those are keyed
// with globals 0 (no globals' number), so the table stays small; for the
// others that key holds stGlobals, and the key with the globals' number
// their status. An entry's word is the statusInfo plus one.

// statusInfo is what AppendRunnable needs of one thread: its status (the
// low two bits), whether it died and whether it is blocked at a barrier
// (what a poll of its block reads), and, when its next step is a poll of
// a block, the block plus one (pollShift to stGlobalsRead). In World.infos
// a status that was read from the globals too (readsGlobals) carries
// stGlobalsRead, so that a step that changes the globals forgets only
// those.
type statusInfo uint32

const (
	stNotStarted statusInfo = iota
	stFinished
	stReady                  // alive, its next step can run
	stWaiting                // alive, its next step waits (or is a poll)
	stStatus      statusInfo = 3
	stDied        statusInfo = 1 << 2
	stBlocked     statusInfo = 1 << 3
	stHolds       statusInfo = 1 << 4 // keeps the GIL (tHold, mode GILBreaker)
	pollShift                = 8
	pollMask      statusInfo = 1<<20 - 1 // the poll's block plus one, shifted down
	stGlobalsRead statusInfo = 1 << 29   // World.infos: the status depends on the globals
	stUnknown     statusInfo = 1 << 31   // World.infos: not known
	stGlobals     statusInfo = 1 << 30   // the status memo: depends on the globals
)

// forgetStatuses marks every thread's status unknown.
func (w *World) forgetStatuses() {
	for t := range w.cache.infos {
		w.cache.infos[t] = stUnknown
	}
	w.cache.unknown = w.cache.infos != nil
}

// forgetGlobalsStatuses marks unknown the statuses that depend on the
// globals, after a GPU step that changed them: the others depend on their
// threads' blocks alone, which the step left as they were (but for the
// stepping thread's, whose status the step sets).
func (w *World) forgetGlobalsStatuses() {
	for t, info := range w.cache.infos {
		if info&stGlobalsRead != 0 {
			w.cache.infos[t] = stUnknown
			w.cache.unknown = true
		}
	}
}

// statusOf is thread t's statusInfo, read from w's (current) vector.
func (w *World) statusOf(t int) statusInfo {
	base := w.thread(t)
	var info statusInfo
	if w.s[base+tDied] != 0 {
		info |= stDied
	}
	if w.s[base+tBlocked] != 0 {
		info |= stBlocked
	}
	if w.s[base+tHold] != 0 {
		info |= stHolds
	}
	switch w.s[base+tStatus] {
	case notStarted:
		return info | stNotStarted
	case finished:
		return info | stFinished
	}
	if r, ok := w.raiseReady(t); ok { // the raise fault decides (raisefault.go)
		if r {
			return info | stReady
		}
		return info | stWaiting
	}
	if w.paused(t) {
		return info | stReady
	}
	if f := w.top(t); w.s[f+fInBody] == 1 {
		if _, st := w.stmtAt(f); rowOf(st).polls {
			return info | stWaiting | statusInfo(st.arg+1)<<pollShift
		}
	}
	if w.ready(t) {
		return info | stReady
	}
	return info | stWaiting
}

// AppendRunnable appends the runnable threads to buf in increasing order
// and reports whether every thread is done: Status over every thread, in
// one pass (a search asks it of every new state). It is appendRunnable
// (world.go) of the current vector, recalled from the status memo where
// it can be.
func (w *World) AppendRunnable(buf []sched.ThreadID) ([]sched.ThreadID, bool) {
	if w.cache.stale && w.recalledStatuses() {
		return w.runnableFrom(w.cache.infos, buf)
	}
	w.sync()
	if w.numbered() {
		w.rememberStatuses()
		if debug.verifyMemo {
			recalled, recalledDone := w.runnableFrom(w.cache.infos, nil)
			if plain, done := w.appendRunnable(nil); !slices.Equal(plain, recalled) || done != recalledDone {
				panic("model: the runnable threads from the statuses differ from the vector's")
			}
		}
		return w.runnableFrom(w.cache.infos, buf)
	}
	return w.appendRunnable(buf)
}

// runnableFrom is AppendRunnable from every thread's statusInfo.
func (w *World) runnableFrom(infos []statusInfo, buf []sched.ThreadID) ([]sched.ThreadID, bool) {
	finished := 0 // a count, not an all-done flag: fewer moves a thread
	from := len(buf)
	for t, info := range infos {
		switch info & stStatus {
		case stFinished:
			finished++
			continue
		case stNotStarted:
			continue
		}
		ready := info&stStatus == stReady
		if b := info >> pollShift & pollMask; b != 0 {
			ready = pollReadyFrom(infos, w.p.blockThreads[b-1])
		}
		if ready {
			buf = append(buf, sched.ThreadID(t))
		}
	}
	return onlyHolder(buf, from, w.holderFrom(infos)), finished == len(infos)
}

// pollReadyFrom is pollReady of a block whose threads are threads.
func pollReadyFrom(infos []statusInfo, threads []int) bool {
	allBlocked := true
	for _, t := range threads {
		if infos[t]&stDied != 0 {
			return true
		}
		if infos[t]&stStatus != stFinished && infos[t]&stBlocked == 0 {
			allBlocked = false
		}
	}
	return allBlocked
}

// recalledStatuses fills in the statuses w.cache.infos lacks from the status
// memo, and reports whether it held them all.
func (w *World) recalledStatuses() bool {
	if w.cache.infos == nil {
		return false
	}
	if !w.cache.unknown {
		return true
	}
	for t, info := range w.cache.infos {
		if info != stUnknown {
			continue
		}
		info, ok := w.p.statusRecalled(memoKey{thread: uint32(t), block: w.cache.blocks[t]})
		if ok && info == stGlobals {
			info, ok = w.p.statusRecalled(memoKey{thread: uint32(t), block: w.cache.blocks[t], globals: w.cache.gnum})
			info |= stGlobalsRead
		}
		if !ok {
			return false
		}
		w.cache.infos[t] = info
	}
	w.cache.unknown = false
	return true
}

// statusRecalled is the status memo's info for k.
func (p *Program) statusRecalled(k memoKey) (statusInfo, bool) {
	_, _, word, ok := p.statuses.find(k)
	return statusInfo(word - 1), ok
}

// rememberStatus stores info for k unless the memo has it; under
// debug.verifyMemo it checks the memo's against it.
func (p *Program) rememberStatus(k memoKey, info statusInfo) {
	if _, _, _, ok := p.statuses.find(k); !ok || debug.verifyMemo {
		if _, _, old := p.statuses.addOrFind(k, 0, 0, uint32(info)+1); old != uint32(info)+1 {
			panic("model: a thread's status differs from the memo's status from the same thread, block and globals")
		}
	}
}

// readsGlobals reports whether thread t's status depends on the globals,
// not only on its block: only when its next step is a protocol
// instruction that may wait (Instr.Ready, which reads locks and
// registries; see ready), or a statement whose readiness reads the
// globals (an atomic's lock, memory.go).
func (w *World) readsGlobals(t int) bool {
	if w.p.raiser >= 0 {
		return true // the raise fault's armed flag (raisefault.go)
	}
	base := w.thread(t)
	if st := w.s[base+tStatus]; st == notStarted || st == finished || w.paused(t) {
		return false
	}
	f := w.top(t)
	if w.s[f+fInBody] == 1 {
		_, st := w.stmtAt(f)
		return rowOf(st).readyReadsGlobals
	}
	return w.p.Protocol.Code[w.s[f+fPC]].Ready != nil
}

// rememberStatuses sets w.cache.infos from w's vector, which is current, and
// stores in the memo the statuses it lacks; w is numbered.
func (w *World) rememberStatuses() {
	if len(w.cache.infos) != len(w.cache.blocks) {
		w.cache.infos = w.newInfos()
	}
	for t, b := range w.cache.blocks {
		info := w.statusOf(t)
		w.cache.infos[t] = info
		k := memoKey{thread: uint32(t), block: b}
		if w.readsGlobals(t) {
			w.p.rememberStatus(k, stGlobals)
			k.globals = w.cache.gnum
			w.cache.infos[t] |= stGlobalsRead
		}
		w.p.rememberStatus(k, info)
	}
	w.cache.unknown = false
}
