package source

import (
	"fmt"

	"swapcheck/pyvm"
	"swapcheck/sched"
)

// The interrupt (-faults interrupt): a KeyboardInterrupt (Ctrl-C) raised
// in the host, the main thread, explored like an interleaving, as package
// model does (model/interrupt.go): a pseudo-thread, SIGINT, whose one
// step raises it where the host stands, and which can take that step
// only while the host stands at a landing; the fault bound (shared with
// the raise fault) ends it, and so does the host's end.
//
// Where it lands here: at every eval-breaker check of the file's own
// bytecode that the host runs (its call of the swap function, the
// generator, __enter__'s and __exit__'s work in it) but a yield's
// (landing), as that CPython version checks (pyvm.StepInfo.Check), with
// that version's unwinding
// (pyvm.Program.Interrupt: 3.13.0's inlined comprehension leaves a with
// without its __exit__). While an interrupt can land, the host's steps
// stop at each such check. Not here: the landings in kernel.py's code
// (after `_kernel_context = mod`, `t.start()`, the polling loop, a with
// statement's end) and in contextlib's (__enter__ once next() returned,
// __exit__'s RESUME, whose exception defers the generator's finally to
// the exception's death), which package model has for the listings. So
// a violation found is one the real code has, but no violation is no
// proof: Program.Partial says so, and the command reports such a search
// as incomplete.
//
// What follows the exception is the simulator's: it leaves the swap
// function's call or __enter__ (the launch's with never starts: its
// threads never run) or __exit__ (the launch is left while its threads
// run: no one polls its block, a thread at its barrier waits there for
// good, and what they see hurts nobody: after-failure);
// _push_kernel_context's finally resets _kernel_context; the host's
// caller catches it and goes on to its next statement. In a device
// function the host calls, the call raises and the host goes on.

// signalHost is the thread the interrupt lands in: host 0, the main
// thread (Load takes the interrupt with one host only).
func (p *Program) signalHost() int { return 0 }

// Partial says why a search of p that found no violation proves nothing
// ("" when it does): the interrupt's landings in kernel.py's and
// contextlib's code are not modelled here.
func (p *Program) Partial() string {
	if p.signal < 0 {
		return ""
	}
	return "the interrupt lands here only at the eval-breaker checks of the file's own code, not in kernel.py's or contextlib's, so no violation is no proof"
}

// MayLoop reports whether the file's code has a loop that can come back
// to a state it was in (pyvm.Program.MayLoop: a while loop, such as a
// wait that polls): then a search without a violation does not show
// that every execution ends, and sched.Hang must check it too.
func (p *Program) MayLoop() bool { return p.py.MayLoop() }

// landing reports whether an interrupt may land after the step info
// describes, as this package models it: at an eval-breaker check of the
// file's own code, in a task that goes on. Not after a YIELD_VALUE: that
// check is its consumer's (contextlib's __enter__ once next() returned,
// a builtin consuming a generator), where CPython leaves the generator
// suspended and runs its finally only when the exception dies, which
// pyvm does not (it collects no garbage): raised there, the swap's
// finally would never run, a violation the real code does not have.
func landing(in *pyvm.StepInfo) bool {
	return in.Check && in.Code != nil && !in.Done && in.Code.Instrs[in.Instr].Op != pyvm.OpYieldValue
}

// interruptLive reports whether an interrupt may still land.
func (w *World) interruptLive() bool {
	return w.p.signal >= 0 && !w.th[w.p.signal].done && int(w.fell) < w.p.faults && !w.finished(w.p.signalHost())
}

// splits reports whether thread t's step stops at the file's first
// eval-breaker check (an interrupt may land there).
func (w *World) splits(t int) bool { return t == w.p.signalHost() && w.interruptLive() }

// signalStatus is SIGINT's status: done once no interrupt may land,
// runnable while the host stands at a landing (and no raise fault is
// armed), else blocked.
func (w *World) signalStatus() sched.Status {
	switch {
	case !w.interruptLive():
		return sched.Done
	case w.th[w.p.signalHost()].landing && !w.armed:
		return sched.Runnable
	}
	return sched.Blocked
}

// interrupt is SIGINT's step: KeyboardInterrupt raised in the host at
// the check where its last step stopped, unwound as that CPython does.
func (w *World) interrupt() *sched.Failure {
	h := w.p.signalHost()
	w.fell++
	w.th[h].landing = false
	w.note(w.p.signal, "SIGINT", "KeyboardInterrupt", "", "raised in the host (main thread) at its eval-breaker check")
	exc := w.newException(h, "KeyboardInterrupt")
	w.p.py.Interrupt(w.s, h, exc, &w.info)
	if w.rec != nil {
		*w.rec = append(*w.rec, w.pyUnit(h, &w.info))
	}
	if w.info.Done {
		return w.taskDone(h)
	}
	return nil
}

// interrupted takes the KeyboardInterrupt that left the host's task (the
// swap function's call, __enter__ or __exit__): the with statement
// raises it.
func (w *World) interrupted(t int, exc pyvm.Value) *sched.Failure {
	th := &w.th[t]
	ph := w.phaseOf(t)
	entered := *ph == phExit || *ph == phExitExc
	*ph, *w.cmOf(t) = phNone, pyvm.Value{}
	th.exc = exc
	if th.frames != nil {
		return nil // a device function the host calls: the call raises (unwind)
	}
	op := w.p.host[t][th.host]
	if entered {
		w.orphanLaunch(op.launch)
	} else {
		w.endBlocks(op.launch, 0) // the with never started: its threads never run
	}
	for w.p.host[t][th.host].kind != hReset {
		th.host++
	}
	w.note(t, "kernel.py", "(the launch's with raises)", "", fmt.Sprintf("%s: _push_kernel_context's finally, then the host's caller", w.s.ExcString(exc)))
	return nil
}

// orphanLaunch marks launch l's live threads orphaned: the host left the
// launch while they run (an interrupt in its with's __exit__).
func (w *World) orphanLaunch(l int) {
	sc := w.p.Scenario
	for b := range sc.Blocks {
		for tid := range sc.Threads {
			u := &w.th[w.p.gpuThread(l, b, tid)]
			if u.done {
				continue
			}
			u.orphan = true
			if u.atBarrier && !u.released {
				u.done = true // waits at the barrier for good
			}
		}
	}
}

// afterFailure reports whether what GPU thread t sees hurts nobody: its
// launch already raised to its caller (its abort flag set, or the host
// left it on an interrupt).
func (w *World) afterFailure(t int) bool { return w.th[t].aborted || w.th[t].orphan }
