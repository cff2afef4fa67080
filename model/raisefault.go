package model

import "swapcheck/scenario"

// The raise fault: an exception raised by the code a thread runs, at a
// place the search chooses.
//
// A scenario's "raise" statement raises at a fixed place of a kernel or
// device-function body. With the fault "raise", any statement of such a
// body may raise instead of running, whichever thread runs it: a GPU
// thread, or a host running a device function it calls (HostCall) or the
// kernel inline (several hosts). The exception is the one the raise
// statement raises (KernelError), standing for any exception a user's
// kernel can raise there (an IndexError, a ZeroDivisionError, ...), and it
// unwinds exactly as that statement's does (raise, interp.go): the
// enclosing device calls' finally blocks run, and a GPU thread dies with
// it, so BlockThread.run records it, the host's poll aborts the block and
// re-raises without joining, and the launch's later blocks never start
// (kernel.py:126-128 and BlockManager.run at d41b90d3); a host's call
// raises to the host's caller, which goes on.
//
// # A fault is two moves
//
// Package sched chooses only which thread moves. The fault is made of two
// of them: RAISE, a pseudo-thread (the last thread, after SIGINT when
// both faults are on), arms the fault, and the next move is the raising
// thread's, whose statement then raises. While armed, only the threads
// that stand at a statement of a body (raisable) can move, so the pair
// is atomic and the search's choice of the second move is the choice of
// the raising thread: the search explores "thread t raises at its next
// statement" at every state and for every raisable t, as it explores
// which thread runs next, with every strategy.
//
// RAISE can move while it is alive and not armed. Its move arms the fault
// when the budget (FaultBound, shared with interrupts) is not spent and
// some thread is raisable and could run now; else it ends RAISE: no raise
// fault falls in the rest of the execution (also how it ends once every
// other thread has). Choosing it where nothing can raise is therefore a
// branch that gives up the remaining raise faults, which is sound (it is
// a subset of the executions without) and keeps RAISE's own readiness a
// function of its slots and the globals, as the status memo needs.
//
// The armed flag and the count of faults so far, of both kinds, are two
// slots after the globals (layout.fault): the count is there, not in
// SIGINT's frame, since it outlives SIGINT (a finished thread's slots are
// dead to the canonical key) and RAISE reads it. A GPU thread's readiness
// reads the globals
// (readsGlobals) and the step memo keys a thread's step with them. The
// raising step itself is never memoised (memoKeyOf): with interrupts it
// also re-arms SIGINT, whose budget it spends.
//
// # Symmetry, reductions
//
// RAISE belongs to no block, so the canonical key never permutes it; the
// armed flag and the count are globals, which name no thread: permuting a
// block's threads permutes the raisable ones, so the key stays sound.
// RAISE's move and every move made while armed declare a dependence on
// every step (Footprint), for DPOR; POR's persistent sets take a fall
// as the raising thread's transition (reduce_faults.go), and under
// gil-breaker claim nothing with the fault on (futuresKnown).
//
// Not modelled: an exception raised inside the swap machinery itself
// (swapped_cuda_module, FakeCUDAKernel.__call__) or in the simulator's
// own code other than the statements of a body: those are the
// interrupt's (an asynchronous exception), not a user's kernel's.

// RaiseName names the raise fault's pseudo-thread in traces and schedules.
const RaiseName = "RAISE"

// addRaiser adds the raise fault's pseudo-thread, when the scenario asks
// for it: the last thread, running a code of one statement.
func (pr *Program) addRaiser() {
	pr.raiser = -1
	if !pr.Scenario.Faults.Has(scenario.FaultRaise) {
		return
	}
	pr.maxFaults = pr.Scenario.FaultBound()
	pr.raises = true // any body statement may raise (World.MayConflict)
	pr.raiser, pr.raiserCode = pr.addFaultThread(RaiseName, sRaiseFault,
		"a fault: the statement the next move's thread stands at raises")
}

// Raiser is the raise fault's pseudo-thread, or -1 when the scenario has
// no raise fault.
func (pr *Program) Raiser() int { return pr.raiser }

// The fault slots (layout.fault, when the scenario has the raise fault):
// the armed flag, then the count of faults that fell, of both kinds.
const (
	faultArmed = iota
	faultCount
	faultSlots
)

// armed reports whether a raise fault is armed in w's (current) vector.
func (w *World) armed() bool { return w.p.raiser >= 0 && w.s[w.p.lay.fault+faultArmed] != 0 }

// armedIn reports whether the globals numbered gnum hold an armed fault
// (for the memo, which may run on a stale world).
func (p *Program) armedIn(gnum uint32) bool {
	return p.raiser >= 0 && p.globals.run(gnum)[p.lay.fault+faultArmed] != 0
}

// faultCount is the count of faults that fell in w's execution so far,
// when the scenario has the raise fault (which keeps it: see above), and
// whether it has.
func (w *World) faultCount() (int, bool) {
	if w.p.raiser < 0 {
		return 0, false
	}
	return int(w.s[w.p.lay.fault+faultCount]), true
}

// countFault counts a fault that fell, when the scenario has the raise
// fault (without it, SIGINT's own count is the count).
func (w *World) countFault() {
	if w.p.raiser >= 0 {
		w.s[w.p.lay.fault+faultCount]++
	}
}

// faultsLeft reports whether another fault may fall: the faults so far,
// interrupts and raises, are fewer than the bound.
func (w *World) faultsLeft() bool { return w.Faults() < w.p.maxFaults }

// raisable reports whether thread t stands at a statement of a kernel or
// device-function body (not the host's own code, not a launch's), where a
// raise fault may fall instead of the statement: a use, a device call, or
// syncthreads' load of cuda (its first sub-step; the later ones are
// kernel.py's own). A paused host is in the middle of the machinery.
func (w *World) raisable(t int) bool {
	base := w.thread(t)
	if t == w.p.signal || t == w.p.raiser || w.s[base+tStatus] != alive || w.paused(t) {
		return false
	}
	f := w.top(t)
	if w.s[f+fInBody] != 1 {
		return false
	}
	c := int(w.s[f+fCode])
	cd := &w.p.codes[c]
	if cd.launch != 0 || w.p.isHostCode(c) {
		return false
	}
	b := int(w.s[f+fBody])
	if b >= len(cd.stmts) {
		return false
	}
	raisable := rowOf(&cd.stmts[b]).raisable
	return raisable != nil && raisable(w.s[f+fSub])
}

// raiseReady is thread t's readiness as the raise fault decides it: ok
// false leaves it to the thread's code; else it is ready. RAISE is ready
// while not armed; while armed, only the raisable threads are.
func (w *World) raiseReady(t int) (ready, ok bool) {
	switch {
	case w.p.raiser < 0:
		return false, false
	case t == w.p.raiser:
		return !w.armed(), true
	case w.armed():
		return w.raisable(t), true
	}
	return false, false
}

// raiseMove is RAISE's move: it arms the fault if one may fall and some
// thread can raise now; else RAISE ends (see above).
func (w *World) raiseMove() {
	p := w.p
	w.cache.ev.src = srcRaiser
	can := false
	if w.faultsLeft() {
		h := w.holder()
		for t := range p.NumThreads() {
			if w.raisable(t) && (h < 0 || h == t || !w.ready(h)) {
				can = true
				break
			}
		}
	}
	if !can {
		w.cache.ev.pc = 1
		w.s[w.thread(p.raiser)+tStatus] = finished
		if w.Trace {
			w.effect("no raise fault falls from here on")
		}
		return
	}
	w.s[p.lay.fault+faultArmed] = 1
	if w.Trace {
		w.effect("armed: the next move's thread raises instead of running its statement")
	}
}

// fall is the armed fault's move of thread t, which is raisable: its
// statement raises KernelError instead of running, as a raise statement
// there would.
func (w *World) fall(t int) {
	l := &w.p.lay
	f := w.top(t)
	w.cache.ev.src, w.cache.ev.code, w.cache.ev.body = srcStmt, int(w.s[f+fCode]), int(w.s[f+fBody])
	w.cache.ev.Fault = scenario.FaultRaise
	w.cache.ev.Raised = KernelError
	w.cache.ev.Aborted = w.s[w.thread(t)+tAbort] != 0
	w.s[l.fault+faultArmed] = 0
	w.countFault()
	if w.Trace {
		w.effect("a fault: %s raised here instead", KernelError)
	}
	w.s[f+fSub] = 0
	w.raise(t, KernelError)
}

// describeFault fills in the texts of a raise fault's step: the statement
// it fell at, marked.
func (p *Program) describeFault(ev *Event) {
	if ev.Fault != scenario.FaultRaise {
		return
	}
	ev.Text = "raise KernelError  # a fault, instead of: " + ev.Text
	ev.Bytecode = "RAISE_VARARGS (a fault: the statement raised)"
	ev.Name = ""
}
