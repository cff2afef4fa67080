package model

import "swapcheck/sched"

// Futures, for sched.POR: what a thread may still touch from the current
// state on, and which threads can unblock a blocked one. Nothing here is
// state or changes the World; it reads the vector and the program.
//
// # Which steps depend on which (the rule per operation)
//
// A step's footprint (objectFootprint) names the finest object that
// decides it. Two steps of different threads are dependent when they name
// the same object and one writes it, and as the group rules below say:
//
//	operation                                 object                    access
//	cuda.X in a body (sUse)                   the module's globals      read
//	globals.items() pass, fn_globs[k] = v,    the module's globals      read / write
//	  fn_globs.update(...)
//	_globals_locks[gid] (get, miss, del)      that module's entry       write
//	_swap_refcount[gid], _swap_state[gid]     that module's entry       write
//	_swap_orig[gid]                           that module's entry       write
//	with lock: (acquire, release)             that one lock             write
//	with _locks_register_lock / _swap_lock    the global lock           write
//	call: _get_kernel_context()               the kernel context        read
//	_kernel_context = ... (host)              the kernel context        write
//	imports, locals, yield, for over a        nothing                   local
//	  local dict, syncthreads' flags
//
// One module's globals are one object: a dict.update or a comprehension
// over items() reads or writes several keys at once. A registry is split
// by key: its operations each name one gid, and the model keeps each key's
// entry apart (no operation reads a registry's length or iterates it), so
// operations on different keys commute. They do in both builds: under the
// GIL each is one atomic C call; in free-threaded CPython (3.13t, 3.14t)
// each holds the dict's per-object lock while it runs, which serialises
// two operations on one dict but does not make their order matter when
// their keys differ (each reads and writes only its own key's entry, and a
// resize changes no value another key's operation sees). The one
// free-threaded operation that is not atomic, a defaultdict miss, is two
// steps on its key's entry (lookup, then __missing__), each a write.
//
// The group rules: a GPU thread's step that ends its thread, kills it or
// changes its barrier flags (a "loud" step: syncthreads' sub-steps, an
// exception that leaves the kernel, the kernel's last step) depends on
// the host's poll of its block, which reads and writes those flags; its
// other steps (quiet) commute with the poll. The host's start of a thread
// commutes with every step but the started thread's, which cannot run
// before it.
//
// # Futures
//
// A thread's future is every step its code can still take, found by
// walking its frames from the innermost out: the rest of each protocol
// listing from the frame's pc (jumps go forward, or back to a local loop
// head whose loop is all at or after the pc, so the rest of the listing
// covers every path), the rest of each with-body, and every device call
// in it with the callee's whole listing and body. The walk stops where
// the thread cannot go on while the frozen threads stay put: at an
// acquire of a lock a frozen thread holds (only the owner releases a
// lock), at a barrier wait when the host, the only thread that releases
// the barrier, is frozen, and, for a thread not started, at once when the
// host is frozen. A lock not fetched yet is the module's registry entry
// when the protocol never deletes entries (Protocol.KeepsLockEntries) and
// the build's defaultdict miss keeps an entry another thread stored (all
// builds but free-threaded-overwrite); otherwise it is any lock of the
// module's pool.

// futStep is one step of a thread's future.
type futStep struct {
	fp sched.Footprint
	// anyLockOf, when not 0, is 1 + the module whose lock, not known yet,
	// the step acquires or releases (fp is then unused)
	anyLockOf int
	// poll, when not 0, is 1 + the block whose poll it is (the host's)
	poll int
	// unknown: a step whose footprint is not known, dependent with all
	unknown bool
}

// futureScan walks one thread's future (see Futures).
type futureScan struct {
	w      *World
	frozen []bool
	see    func(futStep) bool
	found  bool
	// noDeaths: no thread dies in an execution that has not failed (see
	// Futures), so a block's poll runs only once each of its threads is
	// done or waits at the barrier
	noDeaths bool
}

// pollHeld reports whether the host's poll of block g cannot run while
// the frozen threads stay put: no thread dies, and a frozen thread of
// the block is neither done nor waiting at the barrier.
func (sc *futureScan) pollHeld(g int) bool {
	if !sc.noDeaths {
		return false
	}
	for _, u := range sc.w.p.blockThreads[g] {
		b := sc.w.thread(u)
		if sc.frozen[u] && sc.w.s[b+tStatus] != finished && sc.w.s[b+tBlocked] == 0 {
			return true
		}
	}
	return false
}

// step shows st to see, and reports whether the walk is over: see found
// what it looked for.
func (sc *futureScan) step(st futStep) bool {
	if sc.see(st) {
		sc.found = true
		return true
	}
	return false
}

// frozenOwner reports whether lock r is held by a frozen thread.
func (sc *futureScan) frozenOwner(r LockRef) bool {
	o := int(sc.w.s[sc.w.p.lay.lockOwner+int(r)]) - 1
	return o >= 0 && sc.frozen[o]
}

// predictedLock is the lock a fetch of module m's lock not yet made will
// return, or 0 when that is not known.
func (w *World) predictedLock(m int) LockRef {
	if !w.p.Protocol.KeepsLockEntries || w.p.Atomicity.overwrite() {
		return 0
	}
	return LockRef(w.s[w.p.lay.lockReg+m])
}

// instrs walks instructions [from, to) of a frame of module m whose lock
// is lock (0: not fetched yet); it reports whether the walk is over.
func (sc *futureScan) instrs(m, from, to int, lock LockRef) bool {
	l := &sc.w.p.lay
	code := sc.w.p.Protocol.Code
	for i := max(from, 0); i < to; i++ {
		in := &code[i]
		var obj int
		switch in.Object {
		case Globals:
			obj = l.objGlobals + m
		case LockRegistry:
			obj = l.objLockReg + m
		case CountRegistry:
			obj = l.objCount + m
		case SavedRegistry:
			obj = l.objOrig + m
		case GlobalLock:
			if in.Ready != nil && sc.frozenOwner(GlobalLockRef) {
				return true
			}
			obj = l.objLock + int(GlobalLockRef)
		case ModuleLock:
			r := lock
			if r == 0 {
				r = sc.w.predictedLock(m)
			}
			if r == 0 {
				if sc.step(futStep{anyLockOf: 1 + m}) {
					return true
				}
				continue
			}
			if in.Ready != nil && sc.frozenOwner(r) {
				return true
			}
			obj = l.objLock + int(r)
		default:
			continue
		}
		if sc.step(futStep{fp: sched.Footprint{Object: obj, Access: in.Access}}) {
			return true
		}
	}
	return false
}

// call walks a with swapped_cuda_module(...) for code c not yet entered.
func (sc *futureScan) call(t, c int) bool {
	p := sc.w.p
	m := p.codes[c].module
	y := p.Protocol.yield
	return sc.instrs(m, 0, y, 0) || sc.stmts(t, c, 0, -1) || sc.instrs(m, y+1, len(p.Protocol.Code), 0)
}

// stmts walks code c's statements from from on; sub is the sub-step the
// first is at (-1: a statement not started).
func (sc *futureScan) stmts(t, c, from, sub int) bool {
	w, l := sc.w, &sc.w.p.lay
	cd := &w.p.codes[c]
	for b := from; b < len(cd.stmts); b++ {
		st := &cd.stmts[b]
		first := sub
		if b != from || first < 0 {
			first = 0
		}
		local := futStep{fp: sched.Footprint{Access: sched.Local}}
		var stop bool
		switch st.kind {
		case sUse:
			stop = sc.step(futStep{fp: sched.Footprint{Object: l.objGlobals + cd.module, Access: sched.Read}})
		case sCall:
			stop = sc.step(futStep{fp: sched.Footprint{Object: l.objContext, Access: sched.Read}}) || sc.call(t, st.arg)
		case sLaunch:
			stop = sc.call(t, st.arg)
		case sSetContext, sResetContext:
			stop = sc.step(futStep{fp: sched.Footprint{Object: l.objContext, Access: sched.Write}})
		case sPoll:
			if sc.pollHeld(st.arg) {
				return true
			}
			stop = sc.step(futStep{fp: local.fp, poll: 1 + st.arg})
		case sSync:
			base := w.thread(t)
			passed := b == from && first > syncWait
			stop = sc.step(local)
			if !passed && sc.frozen[Host] && w.s[base+tEvent] == 0 {
				return true // the barrier's wait, which only the host's poll releases
			}
		case sRaise, sStart:
			stop = sc.step(local)
		default: // a statement this file has no row for: it may touch anything
			stop = sc.step(futStep{unknown: true})
		}
		if stop {
			return true
		}
	}
	return false
}

// future walks thread t's future (see Futures) while the frozen threads
// take no step, calling see with each step, and reports whether see
// returned true for one.
func (w *World) future(t int, frozen []bool, noDeaths bool, see func(futStep) bool) bool {
	w.sync()
	sc := &futureScan{w: w, frozen: frozen, see: see, noDeaths: noDeaths && !w.p.raises}
	base := w.thread(t)
	switch w.s[base+tStatus] {
	case finished:
		return false
	case notStarted:
		if !frozen[Host] {
			sc.stmts(t, w.p.kernelCode, 0, -1)
		}
		return sc.found
	}
	y := w.p.Protocol.yield
	end := len(w.p.Protocol.Code)
	depth := int(w.s[base+tDepth])
	for d := depth - 1; d >= 0; d-- {
		f := base + tFrames + d*frameSize
		c := int(w.s[f+fCode])
		m := w.p.codes[c].module
		pc := int(w.s[f+fPC])
		lock := LockRef(w.s[f+fLock])
		var stop bool
		switch {
		case w.s[f+fInBody] == 1:
			from, sub := int(w.s[f+fBody]), int(w.s[f+fSub])
			if d < depth-1 { // its call statement is running in the frame above
				from, sub = from+1, -1
			}
			stop = sc.stmts(t, c, from, sub) || (pc >= 0 && sc.instrs(m, y+1, end, lock))
		case pc < y:
			stop = sc.instrs(m, pc, y, lock) || sc.stmts(t, c, 0, -1) || sc.instrs(m, y+1, end, lock)
		default:
			stop = sc.instrs(m, pc, end, lock)
		}
		if stop {
			break
		}
	}
	return sc.found
}

// conflicts reports whether a step with footprint x depends on st by
// their objects.
func (w *World) conflicts(x sched.Footprint, st futStep) bool {
	if st.unknown {
		return true
	}
	if x.Access == sched.Local || st.poll != 0 {
		return false
	}
	l := &w.p.lay
	if st.anyLockOf != 0 {
		m := st.anyLockOf - 1
		r := x.Object - l.objLock
		return r >= w.p.lockPool[m] && r < w.p.lockPool[m]+w.p.lockPoolSize[m]
	}
	if st.fp.Access == sched.Local || st.fp.Object != x.Object {
		return false
	}
	return x.Access == sched.Write || st.fp.Access == sched.Write
}

// MayConflict reports whether thread q may, while the frozen threads
// (p among them) take no step, come to a step that depends on p's next
// step, which can run (see sched.Futures and the rules above).
//
// deathsFail says that the caller's checks fail every step that raises an
// exception the scenario does not raise itself (check's do: a use that
// does not see its fake, an exception of the swap machinery), and that
// an execution ends at its first failing step. Then, in a scenario with
// no raise statement, no thread dies in an execution that has not
// failed, and a block's poll waits for every thread of the block, frozen
// ones included.
func (w *World) MayConflict(p, q int, frozen []bool, deathsFail bool) bool {
	w.sync()
	if p == Host {
		if f := w.top(p); w.s[f+fInBody] == 1 {
			if st := &w.p.codes[w.s[f+fCode]].stmts[w.s[f+fBody]]; st.kind == sPoll {
				// the poll reads and writes its block's threads' flags:
				// any step of theirs may matter
				if q != Host && w.p.threadBlock[q] == st.arg {
					return w.future(q, frozen, deathsFail, func(futStep) bool { return true })
				}
				return false
			}
		}
	}
	x := w.objectFootprint(p)
	quiet := 0 // 1 quiet, -1 loud, 0 not known yet
	return w.future(q, frozen, deathsFail, func(st futStep) bool {
		if w.conflicts(x, st) {
			return true
		}
		if st.poll != 0 && p != Host && w.p.threadBlock[p] == st.poll-1 {
			if quiet == 0 {
				quiet = -1
				if w.quiet(p) {
					quiet = 1
				}
			}
			return quiet < 0
		}
		return false
	})
}

// quiet reports whether GPU thread p's next step leaves its thread alive
// and its barrier flags as they are (see the group rules above): it runs
// the step on a copy.
func (w *World) quiet(p int) bool {
	f := w.top(p)
	if w.s[f+fInBody] == 1 && w.p.codes[w.s[f+fCode]].stmts[w.s[f+fBody]].kind == sSync {
		return false
	}
	c := &World{p: w.p, s: make([]slot, len(w.s))}
	copy(c.s, w.s)
	c.interpret(p)
	base := w.thread(p)
	for _, field := range []int{tStatus, tBlocked, tEvent, tAbort, tDied} {
		if c.s[base+field] != w.s[base+field] {
			return false
		}
	}
	return true
}

// AppendEnablers appends to buf threads one of which must step before
// thread q's next step, blocked now, can run (see sched.Futures): the
// host for a thread not started or waiting at the barrier, a lock's owner
// for its acquire, and for the host's poll every thread of the block that
// is neither done nor waiting at the barrier (any of them may die, which
// also lets the poll run).
func (w *World) AppendEnablers(q int, frozen []bool, buf []sched.ThreadID) []sched.ThreadID {
	w.sync()
	l := &w.p.lay
	base := w.thread(q)
	if w.s[base+tStatus] == notStarted {
		return append(buf, Host)
	}
	f := w.top(q)
	if w.s[f+fInBody] == 1 {
		switch st := &w.p.codes[w.s[f+fCode]].stmts[w.s[f+fBody]]; st.kind {
		case sSync:
			return append(buf, Host)
		case sPoll:
			for _, u := range w.p.blockThreads[st.arg] {
				b := w.thread(u)
				if w.s[b+tStatus] != finished && w.s[b+tBlocked] == 0 {
					buf = append(buf, sched.ThreadID(u))
				}
			}
			return buf
		}
	} else if fp := w.objectFootprint(q); fp.Object >= l.objLock {
		if o := int(w.s[l.lockOwner+fp.Object-l.objLock]) - 1; o >= 0 {
			return append(buf, sched.ThreadID(o))
		}
	}
	for u := range w.p.NumThreads() { // not known: every other thread
		if u != q {
			buf = append(buf, sched.ThreadID(u))
		}
	}
	return buf
}
