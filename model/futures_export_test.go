package model

import "swapcheck/sched"

// FutureCovers reports whether thread t's future, while the frozen
// threads take no step, has a step that stands for a step with footprint
// fp (the host's poll of block poll-1 when poll is not 0): one on the same
// object with at least its access, an unknown lock of the module whose
// lock fp names, or, for a local step, any step at all.
func (w *World) FutureCovers(t int, frozen []bool, deathsFail bool, fp sched.Footprint, poll int) bool {
	l := &w.p.lay
	return w.future(t, frozen, deathsFail, func(st futStep) bool {
		switch {
		case st.unknown:
			return true
		case poll != 0:
			return st.poll == poll
		case fp.Access == sched.Local:
			return true
		case st.anyLockOf != 0:
			m, r := st.anyLockOf-1, fp.Object-l.objLock
			return r >= w.p.lockPool[m] && r < w.p.lockPool[m]+w.p.lockPoolSize[m]
		}
		return st.fp.Object == fp.Object && (st.fp.Access == sched.Write || fp.Access == sched.Read)
	})
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
