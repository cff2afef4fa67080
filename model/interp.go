package model

import (
	"fmt"
)

// interpret runs thread t's next step (t must be runnable), then the
// local steps that follow it, on w's vector, and records what the step
// did in w's event. It is what a step means: it reads and writes only the
// vector and the event (and, when set, the trace's effects and the
// History), never w.cache, and a step's outcome is a function of the
// vector alone. Step wraps it in the speed machinery (speed_step.go).
func (w *World) interpret(t int) {
	w.resetEvent(t)
	w.cache.landing, w.cache.visFrame, w.cache.visPC = 0, -1, -1
	if t == w.p.signal {
		w.interrupt()
		if w.Trace {
			w.p.Describe(&w.cache.ev)
		}
		return
	}
	if t == w.p.raiser {
		w.raiseMove()
		if w.Trace {
			w.p.Describe(&w.cache.ev)
		}
		return
	}
	start := w.startStep(t)
	if w.armed() {
		w.fall(t)
		w.settle(t)
	} else if !w.paused(t) || w.resume(t) {
		f := w.top(t)
		if w.s[f+fInBody] == 1 {
			w.execStmt(t, f, true)
		} else {
			w.cache.visFrame, w.cache.visPC = f, w.s[f+fPC]
			w.execInstr(t, f, true)
		}
		w.settle(t)
	}
	w.endStep(t, start)
	if w.p.signal >= 0 && (w.p.isHost(t) || w.cache.ev.Fault != 0) {
		w.arm() // a raise fault spends the budget the interrupt shares
	}
	if w.Trace {
		w.p.Describe(&w.cache.ev)
	}
}

// resetEvent starts the record of t's step. Its texts are empty unless a
// traced step or a Describe filled them in, so only then does it clear
// them (a pointer write, which costs a GC write barrier).
func (w *World) resetEvent(t int) {
	w.clearEventTexts()
	w.cache.ev.EventNumbers = EventNumbers{Thread: t, Kind: EvStep}
}

// clearEventTexts empties w's record of the texts a traced step or a
// Describe filled in, if any (writing them costs GC write barriers, so
// only then).
func (w *World) clearEventTexts() {
	if w.cache.ev.described || w.cache.ev.Effects != nil {
		w.cache.ev = Event{}
	}
}

// settle runs t ahead through local steps (locals, constants, the yield,
// returns) up to its next shared step, or to its end.
func (w *World) settle(t int) {
	base := w.thread(t)
	for w.s[base+tStatus] != finished {
		if w.cache.landing != 0 && w.stopAtLanding(t) {
			return
		}
		f := w.top(t)
		if w.s[f+fInBody] == 1 {
			stmts := w.p.codes[w.s[f+fCode]].stmts
			body := int(w.s[f+fBody])
			if body >= len(stmts) {
				if w.s[f+fPC] >= 0 { // the with-body is over: back into the generator
					w.mark(ExitCall, t, f)
					w.s[f+fInBody] = 0
					w.s[f+fPC] = slot(w.p.Protocol.yield + 1)
					continue
				}
				w.s[base+tStatus] = finished
				return
			}
			if !stmts[body].local() {
				return
			}
			w.execStmt(t, f, false)
			continue
		}
		pc := int(w.s[f+fPC])
		code := w.p.Protocol.Code
		if pc >= len(code) { // the generator returned: the with statement is done
			w.mark(ExitReturn, t, f)
			w.s[base+tDepth]--
			if !w.closed(t) {
				w.s[w.top(t)+fBody]++
			}
			continue
		}
		in := &code[pc]
		if in.Yield {
			w.mark(EnterReturn, t, f)
			w.s[f+fYielded] = 1
			w.s[f+fInBody] = 1
			w.s[f+fBody] = 0
			continue
		}
		if in.Object != NoObject {
			if in.CheckFirst && (f != w.cache.visFrame || slot(pc) != w.cache.visPC) && w.splits(t) {
				// the comprehension's first pass checks before its effect
				w.s[base+tLanding] = slot(pc + 1)
			}
			return
		}
		w.execInstr(t, f, false)
	}
}

// execInstr runs one protocol instruction of frame f.
func (w *World) execInstr(t, f int, visible bool) {
	pc := int(w.s[f+fPC])
	in := &w.p.Protocol.Code[pc]
	if visible {
		w.cache.ev.src, w.cache.ev.pc = srcInstr, pc
	}
	c := w.newCtx(t, f)
	c.next = pc + 1
	in.Exec(c)
	if in.Check != CheckNone && w.noteCheck(in, pc, c) && c.exc == 0 {
		w.land(t, slot(pc+1))
	}
	if !c.tmpSet {
		w.s[f+fTmpSet] = 0 // the tmp was for this step only
	}
	if c.exc != 0 {
		w.cache.ev.Raised, w.cache.ev.Machinery = c.exc, !c.reraised
		w.cache.ev.Aborted = w.s[w.thread(t)+tAbort] != 0
		w.raise(t, c.exc)
		return
	}
	if c.next != pc {
		w.s[f+fSub] = 0
	}
	w.s[f+fPC] = slot(c.next)
}

// raise unwinds thread t as CPython would: the innermost handler of the
// current frame runs (a finally, a with's exit) with the exception pending;
// a frame without one is left and the exception is thrown into its caller's
// generator at its yield.
func (w *World) raise(t int, e Exc) {
	w.cache.raising = true
	w.unwind(t, e)
	w.cache.raising = false
}

// unwind is raise's unwinding.
func (w *World) unwind(t int, e Exc) {
	base := w.thread(t)
	for {
		if w.closed(t) {
			// the generator closed after an interrupt (closeDeferred):
			// what leaves it is ignored, as from a finalizer
			if w.Trace {
				w.effect("%s leaves the closed generator: ignored", e)
			}
			return
		}
		f := w.top(t)
		if w.s[f+fPC] >= 0 {
			if w.s[f+fInBody] == 1 { // thrown into the generator: __exit__ runs
				w.mark(ExitCall, t, f)
				if l := w.p.codes[w.s[f+fCode]].launch; l > 0 {
					w.orphan(l)
				}
			}
			if target := w.p.Protocol.handlerFor(int(w.s[f+fPC])); target >= 0 {
				w.s[f+fInBody] = 0
				w.s[f+fPC] = slot(target)
				w.s[f+fSub] = 0
				w.s[f+fExc] = slot(e)
				return
			}
			// the exception leaves the with statement, whose body ran (an
			// exception before the yield may leave through code after it:
			// merged-fix's finally tests entered)
			if w.s[f+fYielded] == 1 {
				w.mark(ExitReturn, t, f)
			}
			w.s[base+tDepth]--
			continue
		}
		// The bottom frame: the host catches a failed launch (the caller's
		// except) after resetting the kernel context, and a failed call of
		// a device function of its own (the caller's except, at once); a
		// GPU thread dies and BlockThread.run records the exception for
		// the host to see.
		if w.p.isHost(t) {
			if _, st := w.stmtAt(f); rowOf(st).callLike {
				if w.Trace {
					w.effect("the host's call raised %s; the caller goes on", e)
				}
				w.s[f+fBody]++
				w.closeDeferred(t)
				return
			}
			if e == KeyboardInterrupt {
				w.endUnstarted(t, f)
			}
			w.s[f+fBody]++ // to this launch's _kernel_context = None
			w.s[f+fExc] = slot(e)
			return
		}
		w.s[base+tStatus] = finished
		w.s[base+tDied] = slot(e)
		return
	}
}

// cuda.syncthreads() sub-steps: the load of the module global (the
// calling code's LOAD_GLOBAL cuda; LOAD_METHOD syncthreads), then
// BlockThread.syncthreads in kernel.py, which FakeCUDAModule.syncthreads
// (kernelapi.py:410-411) calls on threading.current_thread().
const (
	syncUse        = iota // cuda.syncthreads: LOAD_GLOBAL cuda; LOAD_METHOD syncthreads
	syncCheckAbort        // if self.abort: raise RuntimeError(...)
	syncBlock             // self.syncthreads_blocked = True
	syncWait              // self.syncthreads_event.wait(); ....clear()
	syncRecheck           // if self.abort: raise RuntimeError(...)
)

// syncLines are the kernel.py lines (at d41b90d3) of the sub-steps after
// syncUse, whose text is the statement's own.
var syncLines = [...]struct {
	line int
	text string
}{
	syncCheckAbort: {215, "if self.abort: raise RuntimeError(\"abort flag set on syncthreads call\")"},
	syncBlock:      {218, "self.syncthreads_blocked = True"},
	syncWait:       {219, "self.syncthreads_event.wait(); self.syncthreads_event.clear()"},
	syncRecheck:    {222, "if self.abort: raise RuntimeError(\"abort flag set on syncthreads clear\")"},
}

// execStmt runs one kernel, device-function or host statement; a local
// one (visible false) leaves the step's description alone. What each
// kind does is its row's (stmts.go).
func (w *World) execStmt(t, f int, visible bool) {
	cd, st := w.stmtAt(f)
	row := rowOf(st)
	if !visible {
		if !row.local {
			panic(fmt.Sprintf("model: statement kind %s is not local", row.name))
		}
		row.execLocal(w, t, st)
		return
	}
	w.cache.ev.src, w.cache.ev.code, w.cache.ev.body = srcStmt, int(w.s[f+fCode]), int(w.s[f+fBody])
	if row.exec == nil {
		noExec(st)
	}
	row.exec(w, t, f, cd, st)
}

// execUse is a use of cuda in a body (sUse), a branch's condition among
// them.
func (w *World) execUse(t, f int, cd *code, st *stmt) {
	if !w.use(t, cd.module, st.arg) {
		return
	}
	if st.cond && w.p.isHost(t) {
		// A branch on threadIdx or blockIdx in code a host runs (a
		// device function it calls, or the kernel it runs inline): the
		// fake's property reads threading.current_thread().threadIdx
		// (kernelapi.py:396), or .blockIdx (kernelapi.py:400).
		w.cache.ev.Raised = AttributeError
		if w.Trace {
			w.effect("AttributeError: '_MainThread' object has no attribute '%s'", st.attr)
		}
		w.raise(t, AttributeError)
		return
	}
	w.nextStmt(f)
	w.land(t, landStmt) // the property's getter: RESUME
}

// execCall is a device call, or the kernel run inline as one
// (kernel.py:85-86): with swapped_cuda_module(self.fn,
// _get_kernel_context()).
func (w *World) execCall(t int, st *stmt) {
	ctx := Value(w.s[w.p.lay.ctx])
	switch {
	case w.p.Protocol.ThreadContext:
		ctx = w.ownContext(t)
		if w.Trace {
			w.effect("_get_kernel_context() is %s (the thread's own)", ctx)
		}
	case w.Trace:
		w.effect("_kernel_context is %s", ctx)
	}
	w.push(t, st.arg, ctx)
}

// execSync is one sub-step of cuda.syncthreads() (sSync).
func (w *World) execSync(t, f int, cd *code, st *stmt) {
	base := w.thread(t)
	sub := w.s[f+fSub]
	w.cache.ev.sub = int(sub)
	switch sub {
	case syncUse:
		if !w.use(t, cd.module, st.arg) {
			return
		}
		if w.p.isHost(t) {
			// A device function called from the host that reached a
			// fake: FakeCUDAModule.syncthreads calls
			// threading.current_thread().syncthreads(), and the host's
			// _MainThread has no such method.
			w.cache.ev.Raised = AttributeError
			if w.Trace {
				w.effect("AttributeError: '_MainThread' object has no attribute 'syncthreads'")
			}
			w.raise(t, AttributeError)
			return
		}
	case syncCheckAbort, syncRecheck:
		if w.s[base+tAbort] == 1 {
			w.cache.ev.Raised = RuntimeError
			w.raise(t, RuntimeError)
			return
		}
	case syncBlock:
		if w.s[base+tAbort] == orphaned {
			// the barrier will never be released: the thread waits
			// on its event for good, which no one sees
			if w.Trace {
				w.effect("no one polls this block any more: the thread waits at the barrier for good")
			}
			w.s[base+tStatus] = finished
			return
		}
		w.s[base+tBlocked] = 1
	case syncWait:
		w.s[base+tEvent] = 0
		if w.p.elements {
			w.s[w.mem(t)+mEpoch]++ // the thread passed the barrier (memory.go)
		}
	}
	if sub == syncRecheck {
		w.nextStmt(f)
	} else {
		w.s[f+fSub]++
	}
}

// execDeviceCheck is FakeCUDAKernel.__call__'s "if self._device or
// _kernel_context:" before a launch (several hosts).
func (w *World) execDeviceCheck(t, f int, st *stmt) {
	ctx := Value(w.s[w.p.lay.ctx])
	if w.Trace {
		w.effect("_kernel_context is %s", ctx)
	}
	if ctx.IsFake() { // truthy: another host's launch runs
		if w.Trace {
			w.effect("the kernel runs here, as a device function, not launched")
		}
		w.endLaunch(st.arg)
		w.cache.ev.skipped = true
		w.s[f+fBody] += slot(st.to - 1) // to the inline run
		w.land(t, landDevice)           // _get_kernel_context's RESUME
		return
	}
	w.nextStmt(f)
	w.land(t, landDevice) // normalize_kernel_dimensions's RESUME
}

// execResetContext is the launch's _kernel_context = None, and the
// caller's except when the launch raised.
func (w *World) execResetContext(t, f int, st *stmt) {
	if !w.p.Protocol.ThreadContext {
		w.s[w.p.lay.ctx] = slot(None)
		if w.Trace {
			w.effect("_kernel_context = None")
		}
	}
	if e := Exc(w.s[f+fExc]); e != 0 {
		if w.Trace {
			w.effect("launch %d raised %s; the caller goes on", st.arg, e)
		}
		w.s[f+fExc] = 0
	}
	w.nextStmt(f)
	if st.to > 0 {
		w.s[f+fBody] += slot(st.to - 1) // past the inline run
	}
	w.closeDeferred(t)
}

// execStart is the host's t.start() of block st.arg's lowest-indexed
// thread not yet started: since the host starts a block's threads in index
// order, that is the same thread in every reachable state as "the
// statement's own thread", but it names no thread, so permuting the
// block's threads permutes the outcome (the canonical key relies on it).
func (w *World) execStart(t, f int, st *stmt) {
	u := w.nextToStart(st.arg)
	w.cache.ev.started = u
	w.s[w.thread(u)+tStatus] = alive
	landing := w.cache.landing
	w.settle(u)
	w.cache.landing = landing
	w.nextStmt(f)
	w.land(t, landStmt) // Thread.start waits on an Event
}

// use is a load of module mod's global name (LOAD_GLOBAL) for an
// attribute: a use of cuda, which the invariants check (EvUse). It raises
// AttributeError unless the value is a fake module, as reading a simulated
// attribute of the real module or of None does, and reports whether the
// thread goes on.
func (w *World) use(t, mod, name int) bool {
	g := Value(w.s[w.p.lay.globals[mod]+name])
	v := g
	if g == Dispatch {
		v = w.dispatch(t)
	}
	w.cache.ev.Kind, w.cache.ev.Module = EvUse, mod
	w.cache.ev.Saw, w.cache.ev.Want = v, w.due(t)
	w.cache.ev.Aborted = w.s[w.thread(t)+tAbort] != 0
	if w.Trace {
		if g == Dispatch {
			w.effect("%s is %s, which gives %s", w.p.Scenario.Modules[mod].Names[name], g, v)
		} else {
			w.effect("%s is %s", w.p.Scenario.Modules[mod].Names[name], v)
		}
	}
	// A read through the dispatcher is no observation of the swap's
	// sequential specification (a module swapped exactly while its count
	// is positive), which the dispatcher, installed for good, does not
	// follow by design: what it gives each thread is checked per step,
	// exactly (Saw against Want), instead (docs/proposed_fix.md).
	if w.History != nil && g != Dispatch {
		w.History.Marks = append(w.History.Marks, Mark{Kind: Observe, Thread: t, Module: mod, Swapped: v != Real, Aborted: w.cache.ev.Aborted})
	}
	if !v.IsFake() {
		w.cache.ev.Raised = AttributeError
		w.raise(t, AttributeError)
		return false
	}
	return true
}

// due is the module thread t's uses of cuda must see: its launch's fake
// for a GPU thread. A device function called from the host runs outside
// any launch, and FakeCUDAKernel.__call__ (kernel.py:84-85) swaps its
// module to _get_kernel_context(), which is None there: that is what its
// uses see when nothing interferes (and they raise AttributeError, as
// they do in the simulator whatever the protocol).
//
// Under a protocol that Dispatches, a host's call swaps in the
// dispatcher, which gives a thread outside any launch the real module:
// that is what the host's uses see when nothing interferes (and they
// raise AttributeError as well, for an attribute only a fake has).
func (w *World) due(t int) Value {
	if w.p.isHost(t) {
		if w.p.Protocol.Dispatches {
			return Real
		}
		return None
	}
	return Fake(w.p.threadLaunch[t])
}

// ownContext is thread t's own kernel context under kernel.py as
// docs/proposed_fix.md patches it (Protocol.ThreadContext): a GPU thread's
// is its launch's fake, set when its BlockThread is made and never
// reset; a host thread has none (None).
func (w *World) ownContext(t int) Value {
	if w.p.isHost(t) {
		return None
	}
	return Fake(w.p.threadLaunch[t])
}

// dispatch is what proposed's _CudaDispatcher.__getattr__ gives thread t
// (proposed.py:13-18, __getattribute__): its own kernel context's attribute, or the real
// module's when it has none. It reads only t's identity, never the world:
// threading.current_thread() and the BlockThread's own attribute.
func (w *World) dispatch(t int) Value {
	if c := w.ownContext(t); c != None {
		return c
	}
	return Real
}

// skipLaunch is a failed assert in _push_kernel_context: another host's
// launch runs. The AssertionError leaves the generator before its try, so
// no finally resets the context; it leaves FakeCUDAKernel.__call__ before
// any thread of launch l started, and the host's caller catches it and
// goes on past the launch (its check, store, launch and reset). The
// launch's threads will never run: they are done.
func (w *World) skipLaunch(f int, st *stmt) {
	w.cache.ev.Raised = AssertionError
	w.cache.ev.skipped = true
	if w.Trace {
		w.effect("AssertionError: concurrent simulated kernel not supported; the caller goes on")
	}
	w.endLaunch(st.arg)
	w.s[f+fBody] += slot(st.to)
	w.s[f+fSub] = 0
}

// skipLaterBlocks marks the threads of launch l that have not started
// done: a block of l raised, and the launch's later blocks never run. It
// says whether it ended any.
func (w *World) skipLaterBlocks(l int) bool {
	ended := false
	for v := range w.p.NumThreads() {
		if b := w.thread(v); w.p.threadLaunch[v] == l && w.s[b+tStatus] == notStarted {
			w.s[b+tStatus] = finished
			ended = true
		}
	}
	return ended
}

// endUnstarted marks done the threads not yet started of the launch whose
// statement host t's frame f is at (sLaunch): an interrupt left the
// launch, whose later threads and blocks will never start. Such a thread
// has no step of its own, so ending it changes no other step's outcome,
// only that the execution can end (a search would see it blocked for
// good).
func (w *World) endUnstarted(t, f int) {
	_, st := w.stmtAt(f)
	if !rowOf(st).launches {
		panic(fmt.Sprintf("model: thread %d's launch raised at a statement of kind %s", t, rowOf(st).name))
	}
	if w.skipLaterBlocks(w.p.codes[st.arg].launch) {
		w.cache.ev.skipped = true // the step wrote other threads (forgetHostWrites)
	}
}

// orphaned is a thread's tAbort when the host left its launch without
// the abort path (an interrupt: interrupt.go): no one polls its block, so
// its barrier is never released, and the abort flag is never set.
const orphaned = 2

// orphan marks launch l's live threads orphaned, as its host's exception
// leaves the launch's with-body (BlockManager.run, or the block loop,
// left by an exception the host raised itself): a thread at the barrier
// waits there for good, which is a thread that ended (no one sees it
// again), and one that reaches it later will. An aborted block's threads
// (the poll set their abort flag) keep it.
func (w *World) orphan(l int) {
	for u := range w.p.NumThreads() {
		b := w.thread(u)
		if w.p.threadLaunch[u] != l || w.s[b+tStatus] != alive || w.s[b+tAbort] != 0 {
			continue
		}
		w.s[b+tAbort] = orphaned
		if w.s[b+tBlocked] == 1 {
			w.s[b+tStatus] = finished
		}
		w.cache.ev.skipped = true // the step wrote other threads (forgetHostWrites)
	}
}

// endLaunch marks launch l's threads done: they will never start.
func (w *World) endLaunch(l int) {
	for u := range w.p.NumThreads() {
		if w.p.threadLaunch[u] == l {
			w.s[w.thread(u)+tStatus] = finished
		}
	}
}

// push enters a with swapped_cuda_module(...) for code c with fake.
func (w *World) push(t, c int, fake Value) {
	base := w.thread(t)
	d := int(w.s[base+tDepth])
	if d >= w.p.maxFrames {
		panic(fmt.Sprintf("model: thread %d needs more than %d frames", t, w.p.maxFrames))
	}
	f := base + tFrames + d*frameSize
	clear(w.s[f : f+frameSize])
	w.s[f+fCode] = slot(c)
	w.s[f+fFake] = slot(fake)
	w.s[base+tDepth] = slot(d + 1)
	w.mark(EnterCall, t, f)
}

// nextToStart is block's lowest-indexed thread not yet started.
func (w *World) nextToStart(block int) int {
	for _, u := range w.p.blockThreads[block] {
		if w.s[w.thread(u)+tStatus] == notStarted {
			return u
		}
	}
	panic(fmt.Sprintf("model: the host starts a thread of block %d, all of whose threads have started", block))
}

// pollReady: the host's polling loop makes progress when a thread of the
// block died, when all are done, or when every live one waits at the barrier.
func (w *World) pollReady(block int) bool {
	allBlocked := true
	for _, t := range w.p.blockThreads[block] {
		base := w.thread(t)
		if w.s[base+tDied] != 0 {
			return true
		}
		if w.s[base+tStatus] != finished && w.s[base+tBlocked] == 0 {
			allBlocked = false
		}
	}
	return allBlocked
}

// firstDied picks the died thread whose exception the host re-raises:
// Python iterates a set, whose order is arbitrary, so any choice is
// faithful. The model takes the smallest exception, and the lowest-numbered
// thread among those that died with it. Choosing by exception first keeps
// the poll symmetric in the block's threads: the lowest-numbered died
// thread alone would make the outcome depend on the threads' numbering
// when two died with different exceptions. (When every died thread has the
// same exception, as in every state a checked search expands, it is the
// lowest-numbered died thread.)
func (w *World) firstDied(block int) (int, Exc) {
	first, exc := -1, Exc(0)
	for _, u := range w.p.blockThreads[block] {
		if e := Exc(w.s[w.thread(u)+tDied]); e != 0 && (exc == 0 || e < exc) {
			first, exc = u, e
		}
	}
	return first, exc
}

// poll is one pass of BlockManager.run's loop that changes something. The
// busy-waiting passes that change nothing are not steps: the host is
// modelled as blocked until a pass can act. Releasing the barrier (the loop
// over blockedthreads) is one step: a thread released early can only run,
// which the scheduler may also order after the rest are released.
func (w *World) poll(t, f, block int) {
	threads := w.p.blockThreads[block]
	if u, e := w.firstDied(block); e != 0 {
		w.cache.ev.pollText = pollAbort
		if w.Trace {
			w.effect("%s died with %s", w.p.ThreadName(u), e)
		}
		for _, o := range threads {
			b := w.thread(o)
			w.s[b+tAbort], w.s[b+tBlocked], w.s[b+tEvent] = 1, 0, 1
		}
		if w.Trace {
			w.effect("%s raised %s: abort the block, re-raise without joining", w.p.ThreadName(u), e)
		}
		// The exception leaves the launch's loop over its blocks
		// (kernel.py:126-128 at d41b90d3, "for grid_point in
		// np.ndindex(*grid_dim): ... bm.run(...)"): the blocks after this
		// one never start, so their threads are done.
		w.skipLaterBlocks(w.p.threadLaunch[u])
		w.raise(t, e)
		return
	}
	done := true
	for _, u := range threads {
		if w.s[w.thread(u)+tStatus] != finished {
			done = false
		}
	}
	if done {
		w.cache.ev.pollText = pollDone
		w.s[f+fBody]++
		return
	}
	w.cache.ev.pollText = pollRelease
	for _, u := range threads {
		b := w.thread(u)
		if w.s[b+tStatus] != finished && w.s[b+tBlocked] == 1 {
			w.s[b+tBlocked], w.s[b+tEvent] = 0, 1
		}
	}
	if w.Trace {
		w.effect("barrier released")
	}
}

func (w *World) effect(format string, args ...any) {
	if w.Trace {
		w.cache.ev.Effects = append(w.cache.ev.Effects, fmt.Sprintf(format, args...))
	}
}
