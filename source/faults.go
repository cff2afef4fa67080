package source

import (
	"swapcheck/pyvm"
	"swapcheck/sched"
)

// The raise fault (-faults raise), as package model has it
// (model/raisefault.go): any statement of a kernel or device-function body
// may raise KernelError instead of running, whichever thread runs it (a
// GPU thread, or a host running a device function it calls or the kernel
// inline). The fault is two moves: RAISE, a pseudo-thread (the last
// thread, of no block), arms it; while armed only the threads that stand
// at such a statement can move, and the next move's thread raises there.
// So the search explores "thread t raises at its next statement" for
// every such t at every state, as it explores which thread runs next.
// RAISE's move ends RAISE instead when no fault may fall (the bound,
// Scenario.FaultBound, is spent) or no thread can raise now: a branch
// that gives up the remaining faults, a subset of the executions without
// them, so sound.
//
// What follows a raise is the simulator's (kernel.py and BlockManager.run
// at d41b90d3), as package model has it: the exception unwinds the
// thread's device calls (each with's __exit__ runs with it, as the file's
// bytecode); a GPU thread dies with it (BlockThread.run records it); the
// host's poll sees it, sets every thread of the block's abort flag and
// event, and re-raises without joining, so the block's other threads
// linger, the launch's later blocks never start, the launch's with runs
// __exit__ with the exception, _kernel_context is reset and the host's
// caller catches it and goes on. A lingering thread raises RuntimeError
// at cuda.syncthreads() (the abort flag), and what it sees hurts nobody
// (its launch already raised to its caller): a use of cuda that does not
// see its fake, or an exception of the swap machinery, in a thread whose
// abort flag is set is an after-failure violation, which the search steps
// past (the thread raises as the simulator would, and dies), as check's
// default scope does. What it does to others shows as their violations.

// Exception types as package model orders them (model.Exc): the poll
// re-raises the first by this order of those its block's threads died
// with (Python iterates a set; any choice is faithful, and one by type
// keeps the poll symmetric in the block's threads). Types the model does
// not name come last, by name.
var excOrder = map[string]int{
	"KeyError": 1, "AttributeError": 2, "RuntimeError": 3, "KernelError": 4, "TypeError": 5,
}

// kernelError is the exception a kernel's raise statement and the raise
// fault raise (pyvm's builtin for model.KernelError).
const kernelError = "swapcheck.KernelError"

// faultStatus is thread t's status as the raise fault decides it (ok
// false: the thread's own code decides): RAISE can move while not armed;
// while armed, only the threads that can raise can.
func (w *World) faultStatus(t int) (sched.Status, bool) {
	switch {
	case t == w.p.signal:
		return w.signalStatus(), true
	case w.p.raiser < 0:
		return 0, false
	case t == w.p.raiser:
		if w.th[t].done {
			return sched.Done, true
		}
		if w.armed {
			return sched.Blocked, true
		}
		return sched.Runnable, true
	case w.armed:
		if w.raisable(t) {
			return sched.Runnable, true
		}
		return sched.Blocked, true
	}
	return 0, false
}

// raisable reports whether thread t stands at a statement of a kernel or
// device-function body where the raise fault may fall: a use, a device
// call, a raise, or cuda.syncthreads()'s use of cuda (not its barrier,
// which is kernel.py's own), with no instruction of the file and no
// exception under way.
func (w *World) raisable(t int) bool {
	if t == w.p.raiser || t == w.p.signal || w.finished(t) || w.s.Status(t) == pyvm.Running {
		return false
	}
	th := &w.th[t]
	if len(th.frames) == 0 || th.exc.K != pyvm.KindUndef {
		return false
	}
	f := &th.frames[len(th.frames)-1]
	cd := &w.p.codes[f.code]
	if cd.host || f.phase != phNone || int(f.pc) >= len(cd.stmts) {
		return false
	}
	return !cd.stmts[f.pc].sync || f.sub == syncUse
}

// raiseMove is RAISE's move: it arms the fault when one may still fall
// and some thread can raise now; else RAISE ends.
func (w *World) raiseMove() {
	t := w.p.raiser
	can := false
	if int(w.fell) < w.p.faults {
		for u := range w.p.hosts + w.p.gpus {
			if w.raisable(u) && w.Status(sched.ThreadID(u)) == sched.Runnable {
				can = true
				break
			}
		}
	}
	w.changed()
	if !can {
		w.th[t].done = true
		w.note(t, "RAISE", "(the raise fault)", "", "no raise fault falls from here on")
		return
	}
	w.armed = true
	w.note(t, "RAISE", "(the raise fault)", "", "armed: the next move's thread raises instead of running its statement")
}

// fall is the armed fault's move of thread t: its statement raises
// KernelError instead of running, as a raise statement there would.
func (w *World) fall(t int) {
	w.armed = false
	w.fell++
	th := &w.th[t]
	f := &th.frames[len(th.frames)-1]
	cd := &w.p.codes[f.code]
	w.noteStmt(t, cd.name, cd.name, "raise KernelError  # a fault, instead of: "+cd.stmts[f.pc].text, "RAISE_VARARGS (a fault: the statement raised)", "")
	th.exc = w.newException(t, kernelError)
}

// newException is a new exception of the builtin type name, thrown by
// thread t.
func (w *World) newException(t int, name string) pyvm.Value {
	exc, err := w.s.NewException(t, name)
	if err != nil {
		panic(err) // a builtin this package names
	}
	return exc
}

// firstDied is the index in types (the exception types a block's
// threads died with, "" for none) of the one the host re-raises: the
// first by excOrder, then by name, then by index (-1 when none died).
func firstDied(types []string) int {
	best := -1
	for i, e := range types {
		if e == "" {
			continue
		}
		if b := types[max(best, 0)]; best < 0 || rank(e) < rank(b) || rank(e) == rank(b) && e < b {
			best = i
		}
	}
	return best
}

func rank(e string) int {
	if r, ok := excOrder[e]; ok {
		return r
	}
	return len(excOrder) + 1
}
