package model

import (
	"fmt"

	"swapcheck/scenario"
)

// The interrupt: a KeyboardInterrupt (SIGINT, Ctrl-C) explored like an
// interleaving.
//
// CPython 3.11 raises a pending signal's exception only in the main
// thread, and only at an eval-breaker check (handle_signals in
// eval_frame_handle_pending; docs/cpython-switch-points.md, "Findings the
// model needs", and testdata/cpython/switchpoints.golden.txt say where, per
// instruction). The model gives the interrupt a pseudo-thread of its own,
// the last thread, named SIGINT: its one step raises KeyboardInterrupt in
// the host (thread Host, the main thread) where the host stands, and it can
// take that step only while the host stands at a landing. So a search
// chooses "the interrupt lands now" as it chooses which thread runs next,
// every strategy explores it, and package sched knows nothing of Python.
// The scenario's fault bound (FaultBound) ends the pseudo-thread once that
// many have landed, or once the host has finished.
//
// # Which host is the main thread
//
// With several hosts (Scenario.Hosts), host 0 (thread Host) is the main
// thread: a test runner or threaded program whose main thread launches
// kernels too, while hosts 1.. are threading.Thread's it started. Only
// host 0 ever takes the KeyboardInterrupt; the others run on through the
// eval-breaker checks that would raise it in the main thread (fact
// signals_only_in_main_thread), so their steps have no landings and never
// stop at one (splits, land).
//
// # Where it lands
//
// A host step is a window of bytecode: one shared operation and the local
// ones after it (interp.go). While an interrupt can still land, the host's
// step stops at the first check in its window (tLanding says which), and
// its next step runs the rest of the window first (a step of local steps
// only, when another check comes before the next shared operation). The
// landings, each with what the exception then does (Python's unwinding, as
// raise models it, from where it lands):
//
//   - after a protocol instruction that checks (Instr.Check: a CALL of a C
//     function once it returned, a lock's __exit__ leaving a with, a
//     loop's JUMP_BACKWARD; CheckFirst: the items() call before a
//     comprehension's first pass): raised at that instruction, so its
//     listing's exception table decides. Merged's line 30 lands inside
//     "with lock:" before "try": the lock is released, the exception leaves
//     the generator, the module stays (partly) swapped with no count, and no
//     finally will ever restore it; line 24 lands after the increment, the
//     lock released, still before "try": swapped, the count stuck at 1;
//     line 43 lands between _swap_orig.pop and fn_globs.update (the saved
//     names are gone for good) or after the update (the zero count entry
//     is left). global-lock's 28, 20 and 45 likewise;
//   - entering a with swapped_cuda_module(...) (the helper's and
//     __enter__'s RESUME, the generator's first RESUME): nothing has run,
//     the with statement raises before its body;
//   - at the generator's yield, once next() returned in __enter__, or at
//     __exit__'s RESUME when the body ended: the generator is left
//     suspended at its yield, and nothing resumes it while the exception
//     lives (its traceback holds the context manager); the caller's with
//     statement raises (fact interrupt_at_yield_defers_finally_to_the_
//     exceptions_death). The model keeps the suspended frame (tDeferred)
//     and closes it where the exception dies: when the host's caller has
//     caught it (after _push_kernel_context's finally, for a launch), the
//     generator's finally runs with GeneratorExit, in the host, and what
//     it raises is ignored (a generator closed from its finalizer);
//   - after a with statement ended (the caller checks once __exit__
//     returned), and after a statement of a with-body run by the host (a
//     use's property getter, t.start(), which waits on an Event): raised in
//     the caller, in the body: the with statement's __exit__ throws it into
//     the generator, whose finally runs at once;
//   - after "_kernel_context = mod" (kernel.py:32, _push_kernel_context's
//     yield, once next() returned in __enter__): the launch's with never
//     starts, and _kernel_context stays set while the exception lives; the
//     generator's finally (kernel.py:36) runs where it dies, as the host's
//     next step;
//   - several hosts only, after FakeCUDAKernel.__call__'s device check
//     ("if self._device or _kernel_context:", k:84, which has no check of
//     its own) read _kernel_context: when it read None, at the RESUME of
//     normalize_kernel_dimensions (k:89), before the assert; when it read
//     another host's fake, at the RESUME of _get_kernel_context (k:85),
//     before the inline run reads the context again (scenarios launch and
//     inline of the golden file). Nothing of the launch ran: its threads
//     never start, and the caller goes on past it (skipAfterCheck);
//   - several hosts, in _push_kernel_context: the assert (k:31) and the
//     store (k:32) have no check between them or before them, so the
//     interrupt lands only once the store is done (landContext above);
//     when the assert fails, at the CALL that makes the AssertionError,
//     whose KeyboardInterrupt then leaves the generator before its try as
//     the AssertionError would (scenario push_busy): the caller catches it
//     and goes on, as it does the AssertionError, so it is no landing of
//     its own;
//   - several hosts, while host 0 runs the kernel inline as a device
//     function (k:85-86, another host's launch running): the landings of
//     a device call from the host, in the kernel's with swapped_cuda_module
//     and its body (scenario inline: the helper's, __enter__'s and the
//     generator's RESUMEs, the body's own RESUME and statements,
//     __exit__'s): the exception leaves the inline run as from a host's
//     device call, and the caller goes on past the launch;
//   - _push_kernel_context's finally (k:36) stores None whether an
//     interrupt lands before it (the generator's RESUME after its yield:
//     the finally runs with the exception) or after it (outside): the
//     store happens, with several hosts as with one;
//   - while the host polls a block (BlockManager.run's loop, k:297-319):
//     the loop's checks land it at any time, waiting or not; the launch
//     ends without the abort path: no thread is aborted or released from
//     the barrier, and the launch's swapped_cuda_module finally restores
//     the kernel's module while the block's threads still run.
//
// Not modelled: a landing while another exception unwinds the host (in
// __exit__'s RESUME on the exception path); a contended lock's acquire
// interrupted while the host waits (fact contended_acquire_interrupted_by_
// real_sigint); landings whose exception the caller catches with nothing
// changed (after a launch or a host call returned), which no later state
// tells from no interrupt; and the lost interrupt (one taken by a
// WeakSet callback is printed and never raised), which is no interrupt.
//
// # After the interrupt
//
// The host's program is a test runner's: each host statement (a launch,
// a device call) is called under "except BaseException" and the runner
// goes on to the next, as it does for a launch that raised. The harm an
// interrupt leaves shows in what comes after: a later launch or host call
// that finds a module still swapped (to an earlier launch's fake), a
// count stuck above zero, a module left swapped at the end. A program
// that ends at the KeyboardInterrupt is the same execution cut short: the
// end state's invariants (left-swapped, registry-leftover) judge it too.

// SignalName names the interrupt's pseudo-thread in traces and schedules.
const SignalName = "SIGINT"

// Landings: where the host's last step stopped (the tLanding slot). A
// positive value is 1 + the pc of a protocol instruction whose exception
// table applies (it checked after its effect, or is a comprehension's first
// pass, checked before it).
const (
	landEnter     slot = -1 - iota // a with swapped_cuda_module(...) was entered; nothing ran yet
	landYield                      // the generator reached its yield; next() returned in __enter__
	landExit                       // the with-body ended; __exit__ began (RESUME)
	landAfterWith                  // a with statement ended; __exit__ returned to the caller
	landStmt                       // a statement of a with-body run by the host ended
	landContext                    // _kernel_context = mod: _push_kernel_context's yield
	landDevice                     // several hosts: FakeCUDAKernel.__call__'s device check read _kernel_context
)

// addSignal adds the interrupt's pseudo-thread, when the scenario asks for
// interrupts: the last thread, running a code of one statement.
func (pr *Program) addSignal() {
	pr.signal = -1
	if !pr.Scenario.Faults.Has(scenario.FaultInterrupt) {
		return
	}
	pr.maxFaults = pr.Scenario.FaultBound()
	pr.signal, pr.signalCode = pr.addFaultThread(SignalName, sInterrupt,
		"KeyboardInterrupt raised in the host (main thread) at its eval-breaker check")
}

// Signal is the interrupt's pseudo-thread, or -1 when the scenario has no
// interrupt fault.
func (pr *Program) Signal() int { return pr.signal }

// The signal thread's slots: tEvent is 1 while the interrupt can land
// (armed), and its frame's fSub counts the interrupts that landed.

// Faults counts the faults that fell in w's execution so far, interrupts
// and raise faults (raisefault.go keeps the count when it has both).
func (w *World) Faults() int {
	w.sync()
	if n, ok := w.faultCount(); ok {
		return n
	}
	if w.p.signal < 0 {
		return 0
	}
	return int(w.s[w.thread(w.p.signal)+tFrames+fSub])
}

// splits reports whether thread t's steps stop at their first check: t is
// the host and an interrupt can still land (the bound is not spent and no
// generator waits to be closed).
func (w *World) splits(t int) bool {
	if t != Host || w.p.signal < 0 {
		return false
	}
	return w.s[w.thread(w.p.signal)+tStatus] != finished && w.s[w.thread(Host)+tDeferred] == 0 && w.faultsLeft()
}

// paused reports whether thread t stopped at a landing, in the middle of a
// window: its next step begins with the window's local steps.
func (w *World) paused(t int) bool { return w.s[w.thread(t)+tLanding] != 0 }

// land notes that the host's step reached a check (what, a landing) at a
// point where, not raising, the interrupt could be raised.
func (w *World) land(t int, what slot) {
	if t == Host && !w.cache.raising && w.p.signal >= 0 {
		w.cache.landing = what
	}
}

// stopAtLanding is settle's test, at each local step: the host reached a
// check since the last, and an interrupt there would change something; it
// then records the landing and says to stop.
func (w *World) stopAtLanding(t int) bool {
	what := w.cache.landing
	w.cache.landing = 0 // a check where none can land is passed for good
	if what == 0 || !w.splits(t) {
		return false
	}
	if (what == landAfterWith || what == landStmt) && w.s[w.top(t)+fPC] < 0 {
		// In the host's own code: only a launch's swap ending inside
		// _push_kernel_context's with changes anything.
		if st := w.bodyStmt(t); st == nil || !rowOf(st).resetsContext {
			return false
		}
	}
	w.s[w.thread(t)+tLanding] = what
	return true
}

// resume runs the rest of a paused host's window: its local steps, up to
// its next shared step or another landing. It reports whether the step
// goes on to the shared step (which can run).
func (w *World) resume(t int) bool {
	base := w.thread(t)
	w.s[base+tLanding] = 0
	f := w.top(t)
	w.cache.visFrame, w.cache.visPC = f, w.s[f+fPC] // a CheckFirst here was this landing
	w.cache.ev.src = srcLocal
	w.settle(t)
	switch what := w.s[base+tLanding]; {
	case what > 0:
		w.cache.ev.src, w.cache.ev.pc = srcInstr, int(what-1) // a local instruction that checked
	case what < 0:
		w.cache.ev.pc = int(what)
	}
	return w.s[base+tLanding] == 0 && w.s[base+tStatus] == alive && w.ready(t)
}

// localTexts describe a paused host's step of local steps by the landing
// it stopped at (Event.pc), or, at 0, by none.
var localTexts = map[int]string{
	0:                  "(local steps up to a shared step that cannot run yet)",
	int(landEnter):     "with swapped_cuda_module(...): the helper and __enter__ start (RESUME)",
	int(landYield):     "yield: next() returns in contextlib's __enter__",
	int(landExit):      "the with-body ended: contextlib's __exit__ starts (RESUME)",
	int(landAfterWith): "__exit__ returned: the with statement ends",
}

// atPoll reports whether thread t polls a block (BlockManager.run's loop).
func (w *World) atPoll(t int) bool {
	st := w.bodyStmt(t)
	return st != nil && rowOf(st).polls
}

// arm writes into the signal thread's slots whether it can step now: the
// interrupt can land, or the host has finished and the signal's last step
// ends it. The thread ends only by a step of its own (the last interrupt
// the bound allows, or that last step), never by another thread's: a
// thread that another ends would be a step sched.DPOR never sees, and its
// races would go unexplored.
func (w *World) arm() {
	sig := w.thread(w.p.signal)
	if w.s[sig+tStatus] == finished {
		return
	}
	hb := w.thread(Host)
	if int(w.s[sig+tFrames+fSub]) >= w.p.maxFaults {
		w.s[sig+tStatus], w.s[sig+tEvent] = finished, 0
		return
	}
	var armed slot
	// (raise faults may have spent the bound the interrupt shares)
	if w.s[hb+tStatus] == finished || w.faultsLeft() && w.s[hb+tDeferred] == 0 && (w.s[hb+tLanding] != 0 || w.atPoll(Host)) {
		armed = 1
	}
	w.s[sig+tEvent] = armed
}

// interrupt is the signal thread's step: KeyboardInterrupt raised in the
// host where it stands (see the landings above).
func (w *World) interrupt() {
	p := w.p
	sig := w.thread(p.signal)
	hb := w.thread(Host)
	w.cache.ev.src = srcSignal
	if w.s[hb+tStatus] == finished {
		// the host's program ended: no interrupt can land any more
		w.cache.ev.pc = 1
		w.s[sig+tStatus], w.s[sig+tEvent] = finished, 0
		return
	}
	w.s[sig+tFrames+fSub]++
	w.countFault()
	w.cache.ev.Raised = KeyboardInterrupt
	what := w.s[hb+tLanding]
	w.s[hb+tLanding] = 0
	f := w.top(Host)
	switch {
	case what > 0:
		if w.Trace {
			in := &p.Protocol.Code[what-1]
			w.effect("lands in the host at %s  %s", p.Protocol.where[what-1], in.Text)
		}
		w.s[f+fPC], w.s[f+fSub] = what-1, 0
		w.raise(Host, KeyboardInterrupt)
	case what == landYield || what == landExit:
		if w.Trace {
			w.effect("lands in contextlib's %s: the generator stays suspended at its yield while the exception lives", map[bool]string{true: "__enter__ (next() returned)", false: "__exit__ (RESUME)"}[what == landYield])
		}
		if what == landExit {
			// resumed, it is thrown GeneratorExit at the yield, whose
			// handler is the finally (its ExitCall is marked already)
			w.s[f+fPC] = slot(p.Protocol.yield)
		}
		d := w.s[hb+tDepth]
		w.s[hb+tDeferred] = d
		w.s[hb+tDepth] = d - 1
		w.raise(Host, KeyboardInterrupt)
	case what == landContext:
		if w.Trace {
			w.effect("lands in _push_kernel_context's __enter__: the launch does not start; _kernel_context stays set while the exception lives")
		}
		w.endUnstarted(Host, f)
		w.s[f+fBody]++ // past the launch, to the finally's _kernel_context = None
		w.s[f+fExc] = slot(KeyboardInterrupt)
	case what == landDevice:
		w.skipAfterCheck(f)
	case what == landAfterWith && w.s[f+fPC] < 0:
		if w.Trace {
			w.effect("lands in FakeCUDAKernel.__call__ after the launch's swap ended: _push_kernel_context's finally runs")
		}
		w.s[f+fExc] = slot(KeyboardInterrupt)
	default:
		if w.Trace {
			switch {
			case what == 0:
				w.effect("lands in BlockManager.run's polling loop: no thread is aborted; the launch's swap exits while its threads run")
			case what == landEnter:
				w.effect("lands entering with swapped_cuda_module(...): nothing ran yet")
			default:
				w.effect("lands in the host's with-body: __exit__ throws it into the generator")
			}
		}
		w.raise(Host, KeyboardInterrupt)
	}
	w.settle(Host)
	if p.Atomicity.BreakerOnly() && w.s[hb+tStatus] == alive && w.holder() < 0 {
		// The check that raised it does not drop the GIL (signals are
		// handled first, and the exception returns from the breaker): the
		// host unwinds up to its next check holding it.
		w.s[hb+tHold] = 1
	}
	w.arm()
}

// closeDeferred closes the generator an interrupt left suspended, if any:
// the exception that held it has died (the host's caller caught it), and
// the generator's finally runs with GeneratorExit, in the host. Whatever
// leaves it is ignored (raise), as from a finalizer.
func (w *World) closeDeferred(t int) {
	base := w.thread(t)
	d := int(w.s[base+tDeferred])
	if d <= 0 {
		return
	}
	if w.s[base+tDepth] != 1 {
		panic(fmt.Sprintf("model: the host closes a suspended generator at depth %d, not from its own code", w.s[base+tDepth]))
	}
	src := base + tFrames + (d-1)*frameSize
	dst := base + tFrames + frameSize
	if src != dst {
		copy(w.s[dst:dst+frameSize], w.s[src:src+frameSize])
		clear(w.s[src : src+frameSize])
	}
	w.s[base+tDepth] = 2
	w.s[base+tDeferred] = -1
	if w.Trace {
		w.effect("the KeyboardInterrupt dies: the suspended generator is closed (GeneratorExit at its yield)")
	}
	w.raise(t, GeneratorExit)
}

// closed reports whether the frame just left (depth now 1) was the
// generator closeDeferred closed, and ends the closing.
func (w *World) closed(t int) bool {
	base := w.thread(t)
	if w.s[base+tDeferred] >= 0 || w.s[base+tDepth] != 1 {
		return false
	}
	w.s[base+tDeferred] = 0
	return true
}

// skipAfterCheck is an interrupt landed after FakeCUDAKernel.__call__'s
// device check (landDevice), on host frame f: at the check's next
// eval-breaker check, the RESUME of normalize_kernel_dimensions (the check
// read None: before the assert) or of _get_kernel_context (it read a fake:
// before the inline run reads the context again). Nothing of the launch
// ran: its threads will never start, and the caller catches the exception
// and goes on past the launch's statements.
func (w *World) skipAfterCheck(f int) {
	_, st := w.stmtAt(f)
	after := rowOf(st).afterDeviceCheck
	if after == nil {
		panic(fmt.Sprintf("model: an interrupt after the device check finds the host at a statement of kind %s", rowOf(st).name))
	}
	after(w, st)
	w.s[f+fBody] += slot(st.to)
	w.s[f+fSub] = 0
}
