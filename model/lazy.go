package model

import (
	"sync"
	"sync/atomic"

	"swapcheck/sched"
)

// A search with compact keys numbers every thread's block and the globals
// (AppendCompactKey), and the memo then recalls a GPU step from those
// numbers alone (stepMemo). Such a world need not keep its vector
// current: a recalled step only changes two numbers, copying the world
// copies the numbers, and the statuses of its threads are recalled too
// (statusMemo). The world is then stale: the numbers are its state and w.s
// is out of date. Whatever reads the vector first calls sync, which writes
// the numbered runs back into it; a step the memo lacks, a host's step,
// a trace, a final check or a key of the vector all do.

// numbered reports whether w knows the number of every block and of the
// globals.
func (w *World) numbered() bool {
	if w.gnum == 0 || w.blocks == nil {
		return false
	}
	for _, n := range w.blocks {
		if n == 0 {
			return false
		}
	}
	return true
}

// sync brings w's vector up to date, if it is stale.
func (w *World) sync() {
	if w.stale {
		w.vectorInto(w.s)
		w.stale = false
	}
}

// vectorInto writes w's vector into dst: a copy, or the numbered runs when
// w is stale. w itself does not change.
func (w *World) vectorInto(dst []slot) {
	if !w.stale {
		copy(dst, w.s)
		return
	}
	l := &w.p.lay
	copy(dst[:l.threads], w.p.globals.run(w.gnum))
	base := l.threads
	for _, n := range w.blocks {
		copy(dst[base:base+l.threadSize], w.p.blocks.run(n))
		base += l.threadSize
	}
}

// keepVectorsForTest, when set, keeps every world's vector current (no
// world goes stale), so that tests can compare searches with and without.
var keepVectorsForTest bool

// statusMemo is the table of threads' statuses: thread t's status, and
// whether it is ready, is a function of t's block and the globals, except
// the readiness of a poll, which it records as such. As in stepMemo,
// lookups take no lock and inserts take the mutex; but its entries are
// two words in the table itself (a lookup reads one cache line), the
// second published after the first: 0 until then, never changed after.
type statusMemo struct {
	tab atomic.Pointer[[]statusSlot] // linear probing; len is a power of 2
	mu  sync.Mutex                   // serializes inserts
	n   int                          // entries, under mu
}

// statusSlot is an entry: the block and globals numbers, then the thread
// and the statusInfo plus one.
type statusSlot struct{ numbers, thread atomic.Uint64 }

func newStatusMemo() *statusMemo {
	m := &statusMemo{}
	slots := make([]statusSlot, 1<<8)
	m.tab.Store(&slots)
	return m
}

// find is the info stored for k.
func (m *statusMemo) find(k memoKey) (statusInfo, bool) {
	slots := *m.tab.Load()
	mask := uint64(len(slots) - 1)
	numbers := uint64(k.block)<<32 | uint64(k.globals)
	for i := k.hash() & mask; ; i = (i + 1) & mask {
		th := slots[i].thread.Load()
		if th == 0 {
			return 0, false
		}
		if uint32(th>>32) == k.thread && slots[i].numbers.Load() == numbers {
			return statusInfo(uint32(th) - 1), true
		}
	}
}

// addOrFind stores info for k unless the memo has an info for k already,
// and returns the info stored.
func (m *statusMemo) addOrFind(k memoKey, info statusInfo) statusInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.find(k); ok {
		return old
	}
	slots := *m.tab.Load()
	if m.n++; m.n*2 > len(slots) {
		g := make([]statusSlot, 2*len(slots))
		for i := range slots {
			if th := slots[i].thread.Load(); th != 0 {
				n := slots[i].numbers.Load()
				insertStatus(g, memoKey{thread: uint32(th >> 32), block: uint32(n >> 32), globals: uint32(n)}, n, th)
			}
		}
		m.tab.Store(&g)
		slots = g
	}
	insertStatus(slots, k, uint64(k.block)<<32|uint64(k.globals), uint64(k.thread)<<32|uint64(info+1))
	return info
}

// insertStatus publishes an entry in the first free slot of k's probe
// sequence.
func insertStatus(slots []statusSlot, k memoKey, numbers, thread uint64) {
	mask := uint64(len(slots) - 1)
	i := k.hash() & mask
	for slots[i].thread.Load() != 0 {
		i = (i + 1) & mask
	}
	slots[i].numbers.Store(numbers)
	slots[i].thread.Store(thread)
}

// statusInfo is what AppendRunnable needs of one thread: its status (the
// low two bits), whether it died and whether it is blocked at a barrier
// (what a poll of its block reads), and, when its next step is a poll of
// a block, the block plus one (above pollShift).
type statusInfo uint32

const (
	stNotStarted statusInfo = iota
	stFinished
	stReady              // alive, its next step can run
	stWaiting            // alive, its next step waits (or is a poll)
	stStatus  statusInfo = 3
	stDied    statusInfo = 1 << 2
	stBlocked statusInfo = 1 << 3
	pollShift            = 8
	stUnknown statusInfo = 1 << 31 // World.infos: not known
)

// forgetStatuses marks every thread's status unknown.
func (w *World) forgetStatuses() {
	for t := range w.infos {
		w.infos[t] = stUnknown
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
	switch w.s[base+tStatus] {
	case notStarted:
		return info | stNotStarted
	case finished:
		return info | stFinished
	}
	if f := w.top(t); w.s[f+fInBody] == 1 {
		if st := &w.p.codes[w.s[f+fCode]].stmts[w.s[f+fBody]]; st.kind == sPoll {
			return info | stWaiting | statusInfo(st.arg+1)<<pollShift
		}
	}
	if w.ready(t) {
		return info | stReady
	}
	return info | stWaiting
}

// runnableFrom is AppendRunnable from every thread's statusInfo.
func (w *World) runnableFrom(infos []statusInfo, buf []sched.ThreadID) ([]sched.ThreadID, bool) {
	allDone := true
	for t, info := range infos {
		switch info & stStatus {
		case stFinished:
			continue
		case stNotStarted:
			allDone = false
			continue
		}
		allDone = false
		ready := info&stStatus == stReady
		if b := info >> pollShift; b != 0 {
			ready = pollReadyFrom(infos, w.p.blockThreads[b-1])
		}
		if ready {
			buf = append(buf, sched.ThreadID(t))
		}
	}
	return buf, allDone
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

// recalledStatuses fills in the statuses w.infos lacks from the status
// memo, and reports whether it held them all.
func (w *World) recalledStatuses() bool {
	if w.infos == nil {
		return false
	}
	for t, info := range w.infos {
		if info != stUnknown {
			continue
		}
		info, ok := w.p.statuses.find(memoKey{thread: uint32(t), block: w.blocks[t], globals: w.gnum})
		if !ok {
			return false
		}
		w.infos[t] = info
	}
	return true
}

// rememberStatuses sets w.infos from w's vector, which is current, and
// stores in the memo the statuses it lacks; w is numbered.
func (w *World) rememberStatuses() {
	if len(w.infos) != len(w.blocks) {
		w.infos = make([]statusInfo, len(w.blocks))
	}
	for t, b := range w.blocks {
		info := w.statusOf(t)
		w.infos[t] = info
		k := memoKey{thread: uint32(t), block: b, globals: w.gnum}
		if _, ok := w.p.statuses.find(k); !ok || verifyMemoForTest {
			if old := w.p.statuses.addOrFind(k, info); old != info {
				panic("model: a thread's status differs from the memo's status from the same thread, block and globals")
			}
		}
	}
}
