package model

import "swapcheck/sched"

// FutureCovers reports whether thread t's future, while the frozen
// threads take no step, has a step that stands for a step with footprint
// fp (the host's poll of block poll-1 when poll is not 0): one on the same
// object with at least its access, an unknown lock of the module whose
// lock fp names, or, for a local step, any step at all.
func (w *World) FutureCovers(t int, frozen []bool, deathsFail bool, fp sched.Footprint, poll int) bool {
	l := &w.p.lay
	f := w.futures(deathsFail)
	segs := f.thread(w, t)
	for i := range segs {
		g := &segs[i]
		if f.holds(w, g.cut, frozen) {
			return false
		}
		switch {
		case g.unknown:
			return true
		case poll != 0:
			if g.polls&(1<<(poll-1)) != 0 {
				return true
			}
			continue
		case fp.Access == sched.Local:
			if g.steps > 0 {
				return true
			}
			continue
		}
		if r := fp.Object - l.objLock; r > int(GlobalLockRef) {
			for m := range w.p.lockPool {
				if g.anyLock&(1<<m) != 0 && r >= w.p.lockPool[m] && r < w.p.lockPool[m]+w.p.lockPoolSize[m] {
					return true
				}
			}
		}
		word, bit := fp.Object/64, uint64(1)<<(fp.Object%64)
		if g.writes[word]&bit != 0 || g.gwrites[word]&bit != 0 || fp.Access == sched.Read && g.reads[word]&bit != 0 {
			return true
		}
	}
	return false
}

// PollOf is the block whose poll is the host's next step, plus one, or 0.
func (w *World) PollOf() int {
	w.sync()
	f := w.top(Host)
	if w.s[f+fInBody] == 1 {
		if st := &w.p.codes[w.s[f+fCode]].stmts[w.s[f+fBody]]; st.kind == sPoll {
			return 1 + st.arg
		}
	}
	return 0
}

// Pinned reports whether module m is pinned while the frozen threads take
// no step (reduce_futures.go, "Pinned modules").
func (w *World) Pinned(m int, frozen []bool) bool {
	w.sync()
	return w.pinned(m, frozen)
}

// GlobalsWritten is the module whose globals fp writes, or -1.
func (w *World) GlobalsWritten(fp sched.Footprint) int {
	l := &w.p.lay
	if fp.Access == sched.Write && fp.Object >= l.objGlobals && fp.Object < l.objLockReg {
		return fp.Object - l.objGlobals
	}
	return -1
}

// BreakPinForTest pins every module of a protocol whose count guards its
// globals, whatever its count, until the returned function runs.
func BreakPinForTest() func() {
	brokenPin = true
	return func() { brokenPin = false }
}

// GlobalsLen is the number of module m's globals.
func (pr *Program) GlobalsLen(m int) int { return pr.lay.globalsLen[m] }
