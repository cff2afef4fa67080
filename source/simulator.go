package source

import (
	"fmt"
	"strings"

	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/sched"
)

// The simulator's own code (kernel.py's launch, the kernel and device
// function bodies), one statement a unit, as package model has it for
// one host.

// hostUnit runs host t's next statement.
func (w *World) hostUnit(t int) unitResult {
	th := &w.th[t]
	op := w.p.host[t][th.host]
	switch op.kind {
	case hDeviceCheck:
		return w.contextCheck(t, op, "kernel.py:84", "if self._device or _kernel_context:",
			"LOAD_ATTR _device; POP_JUMP_IF_TRUE; LOAD_GLOBAL _kernel_context; POP_JUMP_IF_FALSE",
			"the kernel runs here, as a device function, not launched")
	case hCheckContext:
		return w.contextCheck(t, op, "kernel.py:31", "assert _kernel_context is None, \"concurrent simulated kernel not supported\"",
			"LOAD_GLOBAL _kernel_context; POP_JUMP_IF_NONE (else RAISE_VARARGS AssertionError)",
			"AssertionError; the launch does not start, the caller goes on")
	case hInline:
		th.frames = []frame{{code: op.code}}
		return unitResult{}
	case hSetContext:
		if w.p.ThreadContext {
			// kernel.py patched: the fake is made and its threads will
			// carry it; nothing shared is set (model.FakeText)
			w.note(t, "kernel.py", model.FakeText, "CALL FakeCUDAModule; STORE_FAST fake_cuda_module", fakeName(op.launch)+", which the launch's BlockThreads carry")
			th.host++
			return unitResult{shared: true, ends: true}
		}
		w.ctx = int8(op.launch)
		w.note(t, "kernel.py", "_kernel_context = mod", "STORE_GLOBAL _kernel_context", "_kernel_context = "+fakeName(op.launch))
		th.host++
		return unitResult{shared: true, ends: true}
	case hSwap:
		w.s.Begin(t, w.p.swap, w.p.kernel, w.p.fakes[op.launch-1])
		th.phase = phCall
		w.note(t, "kernel.py", "with swapped_cuda_module(self.fn, fake_cuda_module):", "CALL "+w.p.Source.Name, "")
		return unitResult{}
	case hStart:
		// The block's first thread not started yet that runs op.thread's
		// kernel code: with one start per thread in order it is
		// op.thread, and naming none keeps the host's code free of the
		// threads' identities, which the key's symmetry needs.
		kernel := w.p.kernelOf(w.p.gpuThread(op.launch, op.block, op.thread))
		g := w.p.gpuThread(op.launch, op.block, 0)
		for w.th[g].frames != nil || w.th[g].done || w.p.kernelOf(g) != kernel {
			g++
		}
		w.th[g] = thread{frames: []frame{{code: kernel}}}
		w.note(t, "kernel.py", "t.start()  # "+w.p.ThreadName(g), "CALL (Thread.start)", "")
		th.host++
		return unitResult{shared: true, ends: true}
	case hJoin:
		if u := w.blockDied(op); u >= 0 {
			return w.abortBlock(t, op, u)
		}
		if !w.blockDone(op) {
			if !w.blockAtBarrier(op) {
				return unitResult{blocked: true}
			}
			sc := w.p.Scenario
			for tid := range sc.Threads {
				u := &w.th[w.p.gpuThread(op.launch, op.block, tid)]
				if !u.done && u.atBarrier {
					u.atBarrier, u.released = false, true
				}
			}
			w.note(t, "kernel.py", "while livethreads: ... (bm.run)", "FOR_ITER; LOAD_ATTR (polling)", "every live thread is at the barrier: release them")
			return unitResult{shared: true, ends: true}
		}
		w.note(t, "kernel.py", "while livethreads: ... (bm.run)", "FOR_ITER; LOAD_ATTR (polling)", "every thread of the block has ended")
		th.host++
		return unitResult{shared: true, ends: true}
	case hExit:
		if err := w.s.Exit(t, th.cm, pyvm.None); err != nil {
			return w.gap(t, fmt.Sprintf("%s(...) returned %s: %v", w.p.Source.Name, w.s.Repr(th.cm), err))
		}
		th.phase = phExit
		return unitResult{}
	case hCall:
		// FakeCUDAKernel.__call__ of a device function (kernel.py:84-86):
		// self._device is true, so it swaps the function's module to
		// _get_kernel_context() and calls it
		th.frames = []frame{{code: op.code}}
		return unitResult{}
	case hReset:
		if w.p.ThreadContext {
			w.note(t, "kernel.py", model.ReturnText, "RETURN_CONST", "")
		} else {
			w.ctx = 0
			w.note(t, "kernel.py", "_kernel_context = None", "STORE_GLOBAL _kernel_context", "")
		}
		if th.exc.K != pyvm.KindUndef {
			w.note(t, "kernel.py", "except Exception: (the launch raised)", "", w.s.ExcString(th.exc)+": the host's caller catches it and goes on")
			th.exc = pyvm.Value{}
		}
		th.host++
		if op.to > 0 {
			th.host = op.to // past the inline run
		}
		return unitResult{shared: true, ends: true}
	}
	panic("source: unknown host statement")
}

// The sub-steps of cuda.syncthreads() after its use of cuda (model's
// sSync): its checks of the thread's abort flag (kernel.py:215, before
// it blocks, and :222, once the wait returned) are part of the sub-step
// that reads it.
const (
	syncUse   = iota // the use of cuda (FakeCUDAModule.syncthreads)
	syncBlock        // the thread marks itself blocked at the barrier
	syncWait         // it waits for the host's poll to set its event
)

// barrier runs thread t's next sub-step of cuda.syncthreads() in frame f.
func (w *World) barrier(t int, f *frame) unitResult {
	th := &w.th[t]
	if th.orphan && !th.aborted && f.sub == syncBlock {
		// no one polls an interrupted launch's block: the thread waits
		// at the barrier for good, which is a thread that ended
		th.done = true
		w.note(t, w.p.codes[f.code].name, "cuda.syncthreads()", "(kernelapi.py syncthreads: blockedthreads.add; event.wait)", "waits for good: no one polls the interrupted launch's block")
		return unitResult{shared: true, ends: true}
	}
	if th.aborted {
		// if self.abort: raise RuntimeError (kernel.py:215, or :222
		// once the wait returned)
		th.atBarrier, th.released, f.sub = false, false, syncUse
		th.exc = w.newException(t, "RuntimeError")
		w.note(t, w.p.codes[f.code].name, "cuda.syncthreads()", "(BlockThread.syncthreads: if self.abort: raise RuntimeError(...))", "RuntimeError: abort flag set on syncthreads")
		return unitResult{shared: true, ends: true}
	}
	if f.sub == syncBlock {
		th.atBarrier = true
		f.sub = syncWait
		w.note(t, w.p.codes[f.code].name, "cuda.syncthreads()", "(kernelapi.py syncthreads: blockedthreads.add; event.wait)", "blocked at the barrier")
		return unitResult{shared: true, ends: true}
	}
	if !th.released {
		return unitResult{blocked: true}
	}
	th.released = false
	f.sub = syncUse
	f.pc++
	w.note(t, w.p.codes[f.code].name, "cuda.syncthreads()", "(event.wait returns; event.clear)", "past the barrier")
	return unitResult{shared: true, ends: true}
}

// contextCheck is one of a host's reads of _kernel_context before it
// launches (several hosts): None lets the launch go on; another host's
// fake ends this launch before it starts, and the host goes to op.to (the
// inline run, or past it), which busy says.
func (w *World) contextCheck(t int, op hostOp, where, text, bytecode, busy string) unitResult {
	th := &w.th[t]
	effect := "_kernel_context is None"
	if w.ctx != 0 {
		w.endBlocks(op.launch, 0)
		th.host = op.to
		effect = "_kernel_context is " + fakeName(int(w.ctx)) + ": " + busy
	} else {
		th.host++
	}
	w.note(t, where, text, bytecode, effect)
	return unitResult{shared: true, ends: true}
}

// endBlocks ends launch l's blocks from block first on before they
// start: their threads will never run (a host's check found another
// host's launch running, the launch's with never started, or a block
// before them failed).
func (w *World) endBlocks(l, first int) {
	sc := w.p.Scenario
	for b := first; b < sc.Blocks; b++ {
		for tid := range sc.Threads {
			w.th[w.p.gpuThread(l, b, tid)].done = true
		}
	}
}

// blockAtBarrier reports whether every thread of op's block that has not
// ended waits at a barrier (BlockManager.run's poll then releases them).
func (w *World) blockAtBarrier(op hostOp) bool {
	for tid := range w.p.Scenario.Threads {
		u := &w.th[w.p.gpuThread(op.launch, op.block, tid)]
		if !u.done && !u.atBarrier {
			return false
		}
	}
	return true
}

// diedWith is the type of the exception GPU thread t died with, which
// BlockThread.run recorded for the host (its exc, kept once it ended),
// "" when it did not die.
func (w *World) diedWith(t int) string {
	if th := &w.th[t]; th.done && th.exc.K != pyvm.KindUndef {
		return w.s.ExcType(th.exc)
	}
	return ""
}

// blockDied is the thread of op's block whose exception the host
// re-raises (firstDied), -1 when none of them died.
func (w *World) blockDied(op hostOp) int {
	var types []string
	for tid := range w.p.Scenario.Threads {
		types = append(types, w.diedWith(w.p.gpuThread(op.launch, op.block, tid)))
	}
	if tid := firstDied(types); tid >= 0 {
		return w.p.gpuThread(op.launch, op.block, tid)
	}
	return -1
}

// abortBlock is the pass of BlockManager.run's loop that finds a died
// thread in op's block (kernel.py at d41b90d3): it sets every thread's
// abort flag and event, and re-raises the exception without joining; the
// launch's later blocks never start, and the launch's with runs
// __exit__ with the exception.
func (w *World) abortBlock(t int, op hostOp, dead int) unitResult {
	th := &w.th[t]
	sc := w.p.Scenario
	for tid := range sc.Threads {
		g := w.p.gpuThread(op.launch, op.block, tid)
		u := &w.th[g]
		u.aborted, u.released, u.atBarrier = true, true, false
		if w.p.threadObjs {
			w.s.SetThreadAttr(g, "abort", pyvm.True) // what the file's code reads
		}
	}
	w.endBlocks(op.launch, op.block+1)
	for w.p.host[t][th.host].kind != hExit {
		th.host++
	}
	exc, died := w.th[dead].exc, w.diedWith(dead)
	if err := w.s.Exit(t, th.cm, exc); err != nil {
		return w.gap(t, fmt.Sprintf("%s(...) returned %s: %v", w.p.Source.Name, w.s.Repr(th.cm), err))
	}
	th.exc, th.phase = exc, phExitExc
	w.note(t, "kernel.py", "while livethreads: ... (bm.run)", "FOR_ITER; LOAD_ATTR (polling)",
		w.p.ThreadName(dead)+" died with "+shortExc(died)+": t_other.abort = True ...; raise t.exception[0] (the launch's later blocks never start)")
	return unitResult{shared: true, ends: true}
}

// blockDone reports whether every thread of op's block has ended.
func (w *World) blockDone(op hostOp) bool {
	for tid := range w.p.Scenario.Threads {
		if !w.th[w.p.gpuThread(op.launch, op.block, tid)].done {
			return false
		}
	}
	return true
}

// frameUnit runs the next statement of a GPU thread's kernel, or of a
// device function the host calls.
func (w *World) frameUnit(t int) unitResult {
	th := &w.th[t]
	if len(th.frames) == 0 || th.done {
		panic(fmt.Sprintf("source: %s runs before its start or after its end", w.p.ThreadName(t)))
	}
	if th.exc.K != pyvm.KindUndef {
		return w.unwind(t)
	}
	f := &th.frames[len(th.frames)-1]
	cd := &w.p.codes[f.code]
	if int(f.pc) >= len(cd.stmts) {
		if len(th.frames) == 1 {
			th.frames = nil
			if w.p.isHost(t) { // the host's call returned
				th.host++
				return unitResult{}
			}
			th.done = true
			w.note(t, "kernel", "return", "RETURN_VALUE", "")
			return unitResult{shared: true, ends: true}
		}
		th.frames = th.frames[:len(th.frames)-1]
		caller := &th.frames[len(th.frames)-1]
		if err := w.s.Exit(t, caller.cm, pyvm.None); err != nil {
			return w.gap(t, fmt.Sprintf("%s(...) returned %s: %v", w.p.Source.Name, w.s.Repr(caller.cm), err))
		}
		caller.phase = phExit
		return unitResult{}
	}
	st := &cd.stmts[f.pc]
	if st.raise {
		// a local statement: the exception unwinds in the same step
		th.exc = w.newException(t, kernelError)
		w.noteStmt(t, cd.name, cd.name, st.text, "RAISE_VARARGS", "")
		return unitResult{}
	}
	if st.sync && f.sub != syncUse {
		return w.barrier(t, f)
	}
	if !st.call {
		return w.use(t, f, cd, st)
	}
	arg := pyvm.None
	seen := "None"
	how := "LOAD_GLOBAL _kernel_context; CALL " + w.p.Source.Name
	ctx := int(w.ctx)
	if w.p.ThreadContext {
		// _get_kernel_context() patched: the thread's own (a host's: None)
		ctx, how = 0, "CALL _get_kernel_context (the thread's own); CALL "+w.p.Source.Name
		if !w.p.isHost(t) {
			ctx = w.p.launchOf(t)
		}
	}
	if ctx != 0 {
		arg, seen = w.p.fakes[ctx-1], fakeName(ctx)
	}
	fn := w.p.kernel
	if st.fn >= 0 {
		fn = w.p.funcs[st.fn]
	}
	w.s.Begin(t, w.p.swap, fn, arg)
	f.phase = phCall
	effect := "_kernel_context is " + seen
	if w.p.ThreadContext {
		effect = "_get_kernel_context() is " + seen + " (the thread's own)"
	}
	w.noteStmt(t, cd.name, "kernel.py:85", st.text, how, effect)
	if w.p.tx != nil && w.p.tx.ctxMover {
		// a mover (txFlags.ctxMover): the transaction goes on into
		// the swap's code; an unreduced step would end here
		return unitResult{bound: true}
	}
	return unitResult{shared: true, ends: true}
}

// use is a use of cuda (cuda.local, cuda.threadIdx): the module global's
// load, and what it found. An instance of a class of the file's with its
// own __getattribute__ (proposed's dispatcher) is read through it, as
// CPython's LOAD_ATTR does: the thread runs it as a task (phUse), and
// useResolved judges what it returned.
func (w *World) use(t int, f *frame, cd *code, st *stmt) unitResult {
	sc := w.p.Scenario
	mod := cd.module
	name := sc.Modules[mod].Names[st.name]
	v, _ := w.s.DictGet(w.p.globals[mod], w.p.names[mod][st.name])
	w.observe(t, w.p.globals[mod], pyvm.LocEntry, w.p.names[mod][st.name], false)
	seen := w.valueName(v)
	if fn, ok := w.s.Getattribute(v); ok {
		w.s.Begin(t, fn, v, st.attrV)
		f.phase = phUse
		w.noteStmt(t, cd.name, cd.name, st.text, "LOAD_GLOBAL "+name+"; LOAD_ATTR "+st.attr,
			name+" is "+seen+": its class's __getattribute__(self, '"+st.attr+"') runs")
		return unitResult{shared: true, ends: true}
	}
	w.noteStmt(t, cd.name, cd.name, st.text, "LOAD_GLOBAL "+name+"; LOAD_ATTR "+st.attr, name+" is "+seen)
	return w.judgeUse(t, f, cd, st, v, seen, false)
}

// useResolved judges a use read through the file's __getattribute__:
// what it returned is an attribute of a launch's fake or of the real
// module (pyvm's HostAttr), and the use saw that object.
func (w *World) useResolved(t int, f *frame, cd *code, st *stmt, got pyvm.Value) unitResult {
	of, ok := w.s.HostAttr(got)
	if !ok {
		holder := w.p.Scenario.Modules[cd.module].Name + "." + w.p.Scenario.Modules[cd.module].Names[st.name]
		return unitResult{fail: &sched.Failure{Kind: KindModelGap, Thread: sched.ThreadID(t),
			Message: fmt.Sprintf("%s's __getattribute__ gave %s, which -source cannot resolve to a launch's fake", holder, w.s.Repr(got))}}
	}
	seen := w.valueName(of)
	w.note(t, cd.name, "(the use's __getattribute__ returned)", "", "the attribute of "+seen)
	return w.judgeUse(t, f, cd, st, of, seen+" (through its __getattribute__)", true)
}

// judgeUse is what a use that saw v does: the invariants' verdict on it,
// and the thread's next statement. via: v came through the file's
// __getattribute__, which gives a thread outside any launch the real
// module (model.World.due under a protocol that dispatches).
func (w *World) judgeUse(t int, f *frame, cd *code, st *stmt, v pyvm.Value, seen string, via bool) unitResult {
	sc := w.p.Scenario
	mod := cd.module
	name := sc.Modules[mod].Names[st.name]
	own := -1 // a host: outside any launch, its call's context is None
	if !w.p.isHost(t) {
		own = w.p.launchOf(t)
	}
	holder := sc.Modules[mod].Name + "." + name
	var fail *sched.Failure
	tag, host := w.s.HostTag(v)
	switch {
	case host && tag == int32(tagFake+own):
	case own < 0 && (v.K == pyvm.KindNone || via && host && tag == tagReal):
		// what a host's call sees when nothing interferes: its uses raise
		// AttributeError, as in the simulator whatever the swap (the
		// model's due value); the host's call fails and the host goes on
		exc, err := w.s.NewException(t, "AttributeError")
		if err != nil {
			panic(err)
		}
		w.th[t].exc = exc
	case host && tag == tagReal:
		fail = &sched.Failure{Kind: KindUseSawReal, Message: fmt.Sprintf("%s is the real module, not %s: AttributeError: module 'numba.cuda' has no attribute '%s'", holder, w.dueName(own), st.attr)}
	case v.K == pyvm.KindNone:
		fail = &sched.Failure{Kind: KindUseSawNone, Message: fmt.Sprintf("%s is None, not %s: AttributeError: 'NoneType' object has no attribute '%s'", holder, w.dueName(own), st.attr)}
	case host && tag > tagFake && tag < tagKernel:
		fail = &sched.Failure{Kind: KindUseSawOtherFake, Message: fmt.Sprintf("%s is %s, another launch's fake, not %s", holder, seen, w.dueName(own))}
	default:
		fail = &sched.Failure{Kind: KindModelGap, Message: fmt.Sprintf("%s is %s, which -source cannot resolve to a launch's fake", holder, seen)}
	}
	if st.sync {
		f.sub = syncBlock
	} else {
		f.pc++
	}
	if fail != nil && fail.Kind != KindModelGap && w.afterFailure(t) {
		// after-failure: the thread's launch already raised to its
		// caller. As in the simulator (and package model's use), the use
		// raises AttributeError unless it found a fake: another launch's
		// has every attribute a use reads, the real module and None
		// have not
		if fail.Kind == KindUseSawOtherFake {
			w.note(t, cd.name, "(after-failure: the thread's abort flag is set)", "", fail.Kind+", which hurts nobody")
			return unitResult{shared: true, ends: true}
		}
		w.note(t, cd.name, "(after-failure: the thread's abort flag is set)", "", fail.Kind+", which hurts nobody: AttributeError")
		w.th[t].exc = w.newException(t, "AttributeError")
		f.sub = syncUse
		return unitResult{shared: true, ends: true}
	}
	if fail != nil {
		fail.Thread = sched.ThreadID(t)
		return unitResult{fail: fail}
	}
	if w.p.tx != nil && w.p.tx.noRaise && !via && !w.p.isHost(t) {
		// a mover (transactions.go, "Uses"): the transaction goes on
		return unitResult{bound: true}
	}
	return unitResult{shared: true, ends: true}
}

// shortExc is how a trace names an exception type (pyvm's builtin for
// the kernel's own exception without its package).
func shortExc(name string) string { return strings.TrimPrefix(name, "swapcheck.") }

// dueName names what a use should see: launch l's fake, or None (l < 0:
// the host's call).
func (w *World) dueName(l int) string {
	if l < 0 {
		return "None"
	}
	return fakeName(l)
}

// unwind moves thread t's exception out of its innermost frame: into
// the with statement whose body raised (its __exit__ runs with it), or,
// past the outermost frame, to the host, which catches a call that
// raised as it catches a launch that raised.
func (w *World) unwind(t int) unitResult {
	th := &w.th[t]
	f := &th.frames[len(th.frames)-1]
	if f.phase == phBody {
		if err := w.s.Exit(t, f.cm, th.exc); err != nil {
			return w.gap(t, fmt.Sprintf("%s(...) returned %s: %v", w.p.Source.Name, w.s.Repr(f.cm), err))
		}
		f.phase = phExitExc
		return unitResult{}
	}
	th.frames = th.frames[:len(th.frames)-1]
	w.note(t, w.p.codes[f.code].name, "(the exception leaves the frame)", "", w.s.ExcString(th.exc))
	if len(th.frames) == 0 {
		if !w.p.isHost(t) {
			// BlockThread.run records the exception; the thread ends
			// (its exc stays: the host re-raises that object)
			th.frames, th.done = nil, true
			w.note(t, "kernel.py", "except Exception as e: self.exception = (e, ...)  (BlockThread.run)", "", "the thread dies with "+shortExc(w.diedWith(t)))
			return unitResult{shared: true, ends: true}
		}
		th.frames, th.exc = nil, pyvm.Value{}
		th.host++
		w.note(t, "kernel.py", "except Exception: (the host's call raised)", "", "the host goes on")
	}
	return unitResult{}
}

// valueName is how a trace names a value a global holds.
func (w *World) valueName(v pyvm.Value) string {
	if tag, ok := w.s.HostTag(v); ok {
		switch {
		case tag == tagReal:
			return "numba.cuda"
		case tag > tagFake && tag < tagKernel:
			return fakeName(int(tag - tagFake))
		}
	}
	return w.s.Repr(v)
}

func fakeName(l int) string { return fmt.Sprintf("fake#%d", l) }

// gap stops the search: something this package cannot model.
func (w *World) gap(t int, msg string) unitResult {
	return unitResult{fail: &sched.Failure{Kind: KindModelGap, Thread: sched.ThreadID(t), Message: msg}}
}

// note records a statement of the simulator's code (traces only).
func (w *World) note(t int, where, text, bytecode, effect string) {
	w.noteStmt(t, "", where, text, bytecode, effect)
}

// actsReal reports whether v, left in a module's globals after the
// launches, gives a thread outside any launch the real module's
// attributes: an instance of the file's with its own __getattribute__
// (proposed's dispatcher, installed for good), which the first host runs
// on a copy of the end state for every attribute the scenario's uses
// read, each giving an attribute of numba.cuda. This is how
// check.finalFailure counts the listing's model.Dispatch as restored,
// derived here from the file's code rather than assumed
// (docs/proposed_fix.md says what it leaves: cuda is numba.cuda is False).
func (w *World) actsReal(v pyvm.Value) bool {
	fn, ok := w.s.Getattribute(v)
	if !ok {
		return false
	}
	const host, budget = 0, 10000
	for _, attr := range w.p.useAttrs {
		s := w.s.Clone()
		s.Begin(host, fn, v, attr)
		var info pyvm.StepInfo
		for n := 0; s.Status(host) == pyvm.Running; n++ {
			w.p.py.Step(s, host, &info)
			if info.Blocked || info.Fault != "" || n == budget {
				return false
			}
		}
		got, exc := s.Result(host)
		if exc.K != pyvm.KindUndef {
			return false
		}
		of, ok := s.HostAttr(got)
		if !ok {
			return false
		}
		if tag, ok := s.HostTag(of); !ok || tag != tagReal {
			return false
		}
	}
	return len(w.p.useAttrs) > 0
}

// noteStmt records a statement of kernel or device function fn (a use, a
// device call, a raise), which a replay finds in the function's file.
func (w *World) noteStmt(t int, fn, where, text, bytecode, effect string) {
	if w.rec != nil {
		*w.rec = append(*w.rec, Unit{Thread: t, Where: where, Text: text, Bytecode: bytecode, Effect: effect, Func: fn})
	}
}

// Final is sched.System's: after the launches, every module's globals
// hold the real module, and the file's registries hold nothing the
// set-up did not.
func (w *World) Final() *sched.Failure {
	w.force()
	sc := w.p.Scenario
	for m, mod := range sc.Modules {
		for i, name := range mod.Names {
			v, _ := w.s.DictGet(w.p.globals[m], w.p.names[m][i])
			if tag, ok := w.s.HostTag(v); (!ok || tag != tagReal) && !w.actsReal(v) {
				return &sched.Failure{Kind: KindLeftSwapped, Thread: -1,
					Message: fmt.Sprintf("after the launch, %s.%s is %s, not numba.cuda", mod.Name, name, w.valueName(v))}
			}
		}
	}
	if left := w.s.Leftovers(); len(left) > 0 {
		return &sched.Failure{Kind: KindRegistryLeft, Thread: -1,
			Message: "after the launch, the registries keep " + strings.Join(left, ", ")}
	}
	return nil
}
