package model

import "swapcheck/sched"

// Switch points: where CPython 3.11 with the GIL can hand the GIL to
// another thread.
//
// A thread drops the GIL only in handle_eval_breaker, which the
// interpreter reaches from a few instructions (RESUME, the backward jumps,
// a CALL once its non-Python callee returned, ...), and while it blocks in
// C code (a contended lock's acquire, Event.wait, Thread.start, join,
// sleep). A drop request needs the switch interval to have elapsed, which
// any check may find, so every check is a possible switch and no other
// instruction is. docs/cpython-switch-points.md has the list and the
// observations that back it; testdata/cpython/switchpoints.golden.txt has
// them per instruction.
//
// A model step is one shared operation and the local ones after it, up to
// the thread's next shared operation: a window of bytecode. The step
// ends at a switch point when its thread checked somewhere in that window
// (between the step's effect and the next step's), or blocked, or ended.
// In mode GILBreaker a step that ends at no switch point leaves its thread
// holding the GIL (the thread's tHold slot): until its next step, no
// other thread runs (Status, AppendRunnable). In the other GIL mode, gil,
// any thread may run after any step; a traced step records whether it
// ended at a switch point (Event.KeepsGIL), so that a trace can mark each
// switch real 3.11 cannot make.
//
// Where the window checks:
//
//   - Protocol instructions say so themselves (Instr.Check, CheckFirst),
//     line by line from the golden file (TestSwitchPointsOfListings): a
//     CALL of a C function (dict.update, dict.pop, dict.get, id, a lock's
//     __exit__ when a with is left) checks once it returned; a loop's
//     JUMP_BACKWARD checks; BEFORE_WITH (a lock's acquire), the
//     subscripts (a defaultdict miss included), STORE_SUBSCR,
//     DELETE_SUBSCR, FOR_ITER, COMPARE_OP and the forward jumps do not.
//   - Crossing a with statement's boundary checks: entering it calls the
//     context manager's helper and __enter__ (Python: RESUME) and runs the
//     generator to its yield (RESUME at its start, then next() returns in
//     __enter__: a CALL of a C function); leaving it calls __exit__
//     (Python: RESUME), which resumes the generator (RESUME after yield)
//     or throws into it; once the generator returned, the caller's with
//     statement checks (observed: an interrupt pending there lands in the
//     caller at that CALL). An exception that leaves a generator goes on
//     into its caller's with statement, whose __exit__ runs (RESUME), or
//     ends the thread (BlockThread.run), or reaches the host's except
//     (after _push_kernel_context's __exit__, Python: RESUME).
//   - Kernel, device-function and host statements end at a switch point,
//     all but one: a use (NAME.ATTR) of one of FakeCUDAModule's
//     properties runs the getter (RESUME), a device call runs
//     FakeCUDAKernel.__call__ (RESUME), t.start() waits on an Event
//     (blocking), the polling loop jumps back (JUMP_BACKWARD), and the
//     host's stores of _kernel_context are followed by the context
//     manager's yield or return. The model does not say which attribute a
//     use loads nor what Python follows a use in the kernel, so it counts
//     every use as a switch point: it may allow a switch 3.11 cannot make
//     after a use of a plain attribute (gridDim, blockDim), never forbid
//     one it can. The exception is syncthreads' first sub-step: "if
//     self.abort:" is followed by "self.syncthreads_blocked = True" with
//     no check between (LOAD_ATTR, POP_JUMP_FORWARD_IF_FALSE, STORE_ATTR;
//     k:215-217 in the golden file), so when it does not raise, the
//     thread keeps the GIL.
//   - A thread whose next step cannot run (a lock another thread holds,
//     the barrier's wait, the poll) gives the GIL away while it blocks; a
//     thread that ended has given it away.

// Check is where a protocol instruction's own bytecode checks the eval
// breaker, after the step's effect. Its zero value, CheckNone, is the
// common case (most instructions never check), so that a listing names
// only the instructions that do; a missing one shows as a landing in the
// golden file that no instruction at its line claims.
type Check uint8

const (
	// CheckNone: no check from the step's effect up to the next step.
	CheckNone Check = iota
	// CheckAfter: a check after the effect, when the step does not
	// raise: a CALL of a C function once it returned, the call of a
	// lock's __exit__ that leaves a with statement normally, or the
	// JUMP_BACKWARD that closes a loop's body. (Raising, the CALL does
	// not check, and a with statement left by an exception calls
	// __exit__ through WITH_EXCEPT_START, which does not check.)
	CheckAfter
	// CheckAlways: a CALL of a C function that returned and checked,
	// before a later opcode of the same step raises (global-lock's
	// "swapped_keys, refcount = _swap_state.get(globals_id)" unpacks
	// None).
	CheckAlways
	// CheckLoop: one pass of a comprehension's loop: a pass that goes
	// round again ends with the comprehension's backward jump (a check);
	// the pass that finds the iterator exhausted returns to the
	// generator, a Python callee, with none.
	CheckLoop
)

// CheckFirst (Instr) marks an instruction whose bytecodes before its
// effect check when it is entered from another instruction: the first
// pass of a comprehension over fn_globs.items() (the items() call, then
// the comprehension's RESUME), but not a pass after a pass.

// stepStart is where a thread's step started, for endStep.
type stepStart struct {
	frame  int // the top frame's index in the vector
	pc     slot
	inBody bool
	sync   bool // the step is syncthreads' first sub-step
}

// tracksGIL reports whether w's steps work out their switch points: in
// mode GILBreaker always (they are state), in gil when traced (for the
// trace's marks).
func (w *World) tracksGIL() bool {
	a := w.p.Atomicity
	return a.BreakerOnly() || (w.Trace && !a.NoGIL())
}

// startStep notes where thread t's step starts (interpret), when w's
// steps track the GIL.
func (w *World) startStep(t int) stepStart {
	if !w.tracksGIL() {
		return stepStart{}
	}
	f := w.top(t)
	s := stepStart{frame: f, pc: w.s[f+fPC], inBody: w.s[f+fInBody] == 1}
	if s.inBody && !w.paused(t) {
		_, st := w.stmtAt(f)
		keep := rowOf(st).mayKeepGIL
		s.sync = keep != nil && keep(w.s[f+fSub])
	}
	return s
}

// noteCheck records in the step's event that instruction in, just run
// at pc (c its context), checked the eval breaker after its effect.
// It reports whether this instruction checked.
func (w *World) noteCheck(in *Instr, pc int, c *Ctx) bool {
	var checked bool
	if c.unchecked {
		return false
	}
	switch in.Check {
	case CheckAfter:
		checked = c.exc == 0
	case CheckAlways:
		checked = true
	case CheckLoop:
		checked = c.exc == 0 && c.next == pc
	}
	w.cache.ev.checked = w.cache.ev.checked || checked
	return checked
}

// endStep works out whether thread t's step, which started at s, left t
// holding the GIL, and records it: in the event always, in t's tHold slot
// in mode GILBreaker.
func (w *World) endStep(t int, s stepStart) {
	if !w.tracksGIL() {
		return
	}
	keeps := w.keepsGIL(t, s)
	w.cache.ev.keepsGIL = keeps
	if w.p.Atomicity.BreakerOnly() {
		var v slot
		if keeps {
			v = 1
		}
		w.s[w.thread(t)+tHold] = v
	}
}

// keepsGIL: t's step, which started at s, ended at no switch point.
func (w *World) keepsGIL(t int, s stepStart) bool {
	if w.s[w.thread(t)+tStatus] != alive || w.cache.ev.checked {
		return false
	}
	f := w.top(t)
	inBody := w.s[f+fInBody] == 1
	switch {
	case s.sync:
		// "if self.abort:" passed; the thread is at "self.syncthreads_blocked
		// = True" in the same frame (a raise would have marked a boundary).
		if !inBody || f != s.frame {
			return false
		}
	case s.inBody || inBody || f != s.frame:
		return false
	default:
		pc := w.s[f+fPC]
		if w.p.Protocol.Code[pc].CheckFirst && pc != s.pc {
			return false
		}
	}
	return w.ready(t)
}

// crossed records that the step crossed a with statement's boundary,
// which checks (see above).
func (w *World) crossed() { w.cache.ev.checked = true }

// KeepsGIL reports whether, under CPython 3.11 with the GIL, the thread
// that took this step keeps the GIL after it: the step ended at no
// eval-breaker check, the thread neither blocked nor ended, so no other
// thread can run next. It is known for steps of mode gil-breaker, and of
// mode gil when the world was traced; otherwise it is false.
func (ev *Event) KeepsGIL() bool { return ev.keepsGIL }

// holder is the thread that keeps the GIL in w's (current) vector, or -1:
// in mode GILBreaker, the thread whose last step ended at no switch point
// (at most one: while it holds, no other thread steps).
func (w *World) holder() int {
	if !w.p.Atomicity.BreakerOnly() {
		return -1
	}
	base := w.p.lay.threads
	for t := range w.p.NumThreads() {
		if w.s[base+tHold] != 0 {
			return t
		}
		base += w.p.lay.threadSize
	}
	return -1
}

// onlyHolder cuts runnable, the threads appended to a list from index
// from on, to the holder alone when there is one among them.
func onlyHolder(runnable []sched.ThreadID, from, holder int) []sched.ThreadID {
	if holder < 0 {
		return runnable
	}
	for _, t := range runnable[from:] {
		if int(t) == holder {
			return append(runnable[:from], t)
		}
	}
	return runnable
}

// holderFrom is holder from every thread's statusInfo.
func (w *World) holderFrom(infos []statusInfo) int {
	if !w.p.Atomicity.BreakerOnly() {
		return -1
	}
	for t, info := range infos {
		if info&stHolds != 0 {
			return t
		}
	}
	return -1
}

// KeepsGIL reports whether thread t keeps the GIL in w (mode GILBreaker):
// its last step ended at no switch point, so it takes the next step. It
// reads t's own slots only.
func (w *World) KeepsGIL(t int) bool {
	w.sync()
	return w.p.Atomicity.BreakerOnly() && w.s[w.thread(t)+tHold] != 0
}

// gilFootprint marks, in mode GILBreaker, the steps that change which
// threads can run: a step of the thread that keeps the GIL (it may end at
// a switch point, letting every other thread run), and a step that will
// leave its thread keeping it (no other thread runs after it). Such a
// step depends on every other thread's step, which is what DPOR needs
// (sched.DPOR: a step that changes whether another can run must be
// dependent with it). Whether a step will leave its thread keeping the
// GIL is found by taking it on a copy of w. Where that cannot be done, it
// is over-approximated from the thread's own state (mayKeepGIL): when the
// thread is blocked, and when w is shared with stress's goroutines, which
// read footprints without a lock.
func (w *World) gilFootprint(t int) bool {
	if !w.p.Atomicity.BreakerOnly() {
		return false
	}
	base := w.thread(t)
	if w.s[base+tStatus] != alive {
		return false
	}
	if w.s[base+tHold] != 0 {
		return true
	}
	if !w.mayKeepGIL(t) {
		return false
	}
	if w.cache.shared || !w.ready(t) {
		return true
	}
	c := w.cache.gil
	if c == nil {
		c = &World{p: w.p, s: make([]slot, len(w.s))}
		w.cache.gil = c
	}
	copy(c.s, w.s)
	c.interpret(t)
	return c.s[c.thread(t)+tHold] != 0
}

// mayKeepGIL over-approximates from thread t's own state whether its next
// step may leave it keeping the GIL: any protocol instruction's step may
// (a check after the effect is skipped when the step raises, and whether
// it does depends on the registries), syncthreads' first sub-step may,
// and every other statement's step ends at a switch point.
func (w *World) mayKeepGIL(t int) bool {
	f := w.top(t)
	if w.s[f+fInBody] != 1 {
		return true
	}
	_, st := w.stmtAt(f)
	keep := rowOf(st).mayKeepGIL
	return keep != nil && keep(w.s[f+fSub])
}
