package model

import (
	"fmt"

	"swapcheck/sched"
)

// The statement kinds: one row each, saying everything the model knows of
// a kind of compiled statement (a kernel or device-function statement of
// the scenario, or one of the host's own). Nothing outside this table and
// the compiler that makes statements (program.go) switches on a kind: to
// add a statement, add its kind and its row (docs/contributing.md,
// "Adding a statement").
//
// A row's functions take the world, the thread t, its top frame f (whose
// code cd is at statement st) and read the vector; exec writes it.

// stmtKindRow is what one kind of statement does.
type stmtKindRow struct {
	// name is the kind's name, for the panics of a broken invariant.
	name string
	// local: the statement touches nothing shared, so it runs in the
	// step before it (settle runs it through execLocal).
	local     bool
	execLocal func(w *World, t int, st *stmt)
	// exec runs the statement as a visible step (interpret). It moves
	// the frame on (fBody, fSub) itself.
	exec func(w *World, t, f int, cd *code, st *stmt)
	// ready says whether the statement can run now (nil: always), a
	// blocked thread's reason being the barrier, the poll or the signal.
	ready func(w *World, t, f int, st *stmt) bool
	// readyReadsGlobals: ready reads the globals (a lock), not only the
	// thread's own slots, so the status memo keys it with them
	// (readsGlobals, speed_lazy.go)
	readyReadsGlobals bool
	// footprint is the shared object the statement's next step touches
	// (nil: none, a local step).
	footprint func(w *World, f int, cd *code, st *stmt) sched.Footprint
	// watches: a host's statement that watches its block's group (the
	// start of a thread, the poll), whose Footprint names the group.
	watches bool
	// future adds the statement's steps to a futures walk (reduce_futures.go):
	// b is its index in cd, and sub the sub-step the thread is at when
	// b is the first statement walked (from), -1 otherwise.
	future func(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt)
	// describe fills in a traced step's texts (Program.Describe).
	describe func(p *Program, ev *Event, cd *code, st *stmt)
	// raisable: a raise fault can fall at the statement's step at
	// sub-step sub (raisefault.go), standing for a raise in its place.
	raisable func(sub slot) bool
	// mayKeepGIL: under GILBreaker, the statement's step at sub-step
	// sub may leave its thread keeping the GIL (switchpoint.go); every
	// other statement's step ends at a switch point.
	mayKeepGIL func(sub slot) bool
	// entersCall: the statement enters a with swapped_cuda_module(...)
	// as a device call does (a GPU thread's or host's call of a device
	// function), which counts towards the program's calls and locks.
	entersCall bool
	// callLike: the statement runs a device function's code as a call
	// (a device call, or the kernel run inline as one): an exception it
	// lets out is the host's caller's to catch.
	callLike bool
	// launches: the host's with swapped_cuda_module(self.fn,
	// fake_cuda_module) around a launch's blocks (st.arg is the launch
	// body's code).
	launches bool
	// polls: the host's polling loop of block st.arg (BlockManager.run).
	polls bool
	// resetsContext: the launch's _kernel_context = None (the end of
	// _push_kernel_context's with), where an interrupt in the host's own
	// code changes what the launch leaves.
	resetsContext bool
	// barrier: the statement changes its thread's barrier flags (a loud
	// step for the host's poll of its block, reduce_futures.go).
	barrier bool
	// enablers appends the threads one of which must step before the
	// blocked statement can run (nil: not known, any other thread).
	enablers func(w *World, t int, st *stmt, buf []sched.ThreadID) []sched.ThreadID
	// afterDeviceCheck is what an interrupt that lands after
	// FakeCUDAKernel.__call__'s device check does at the statement the
	// check led to (interrupt.go; nil: the check leads elsewhere).
	afterDeviceCheck func(w *World, st *stmt)
}

// stmtKinds is the table, indexed by stmtKind.
var stmtKinds [numStmtKinds]stmtKindRow

func init() {
	stmtKinds = [numStmtKinds]stmtKindRow{
		sAtomic: {
			name: "atomic",
			exec: func(w *World, t, f int, cd *code, st *stmt) { w.execAtomic(t, f, cd, st) },
			ready: func(w *World, t, f int, st *stmt) bool {
				return w.s[f+fSub] != atAcquire || w.s[w.p.lay.opLock+st.lock] == 0
			},
			readyReadsGlobals: true,
			footprint:         atomicFootprint,
			future:            futureAtomic,
			describe:          describeAtomic,
			raisable:          func(sub slot) bool { return sub == atUse },
		},
		sShared: {
			name:      "shared-array",
			exec:      func(w *World, t, f int, cd *code, st *stmt) { w.execShared(t, f, cd, st) },
			footprint: sharedFootprint,
			future:    futureShared,
			describe:  describeShared,
			raisable:  func(sub slot) bool { return sub == shUse },
		},
		sStore: elementRow("store"),
		sLoad:  elementRow("load"),
		sUse: {
			name: "use",
			exec: func(w *World, t, f int, cd *code, st *stmt) { w.execUse(t, f, cd, st) },
			footprint: func(w *World, f int, cd *code, st *stmt) sched.Footprint {
				return sched.Footprint{Object: w.p.lay.objGlobals + cd.module, Access: sched.Read}
			},
			future: func(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
				sc.step(futStep{fp: sched.Footprint{Object: sc.w.p.lay.objGlobals + cd.module, Access: sched.Read}})
			},
			describe: func(p *Program, ev *Event, cd *code, st *stmt) {
				ev.Bytecode = "LOAD_GLOBAL; LOAD_ATTR"
				if st.cond {
					ev.Bytecode = "LOAD_GLOBAL; LOAD_ATTR " + st.attr + "; LOAD_ATTR x; LOAD_CONST; COMPARE_OP; POP_JUMP_FORWARD_IF_FALSE"
					if st.mod {
						ev.Bytecode = "LOAD_GLOBAL; LOAD_ATTR " + st.attr + "; LOAD_ATTR x; LOAD_CONST; BINARY_OP %; LOAD_CONST; COMPARE_OP; POP_JUMP_FORWARD_IF_FALSE"
					}
				}
				ev.Name = p.Scenario.Modules[cd.module].Names[st.arg]
			},
			raisable: func(slot) bool { return true },
		},
		sCall: {
			name:       "call",
			exec:       func(w *World, t, f int, cd *code, st *stmt) { w.execCall(t, st) },
			footprint:  contextCallFootprint,
			future:     func(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) { sc.contextCall(t, st.arg) },
			describe:   describeCall,
			raisable:   func(slot) bool { return true },
			entersCall: true,
			callLike:   true,
		},
		sSync: {
			name: "syncthreads",
			exec: func(w *World, t, f int, cd *code, st *stmt) { w.execSync(t, f, cd, st) },
			ready: func(w *World, t, f int, st *stmt) bool {
				return w.s[f+fSub] != syncWait || w.s[w.thread(t)+tEvent] == 1
			},
			footprint: func(w *World, f int, cd *code, st *stmt) sched.Footprint {
				if w.s[f+fSub] == syncUse {
					// cuda.syncthreads() loads the module's global like a
					// use (the one footprint change of the barrier: it
					// reads the module's globals, so it conflicts with
					// every swap)
					return sched.Footprint{Object: w.p.lay.objGlobals + cd.module, Access: sched.Read}
				}
				// the thread's own barrier flags, which only the host's
				// poll (a watcher) also touches
				return sched.Footprint{Access: sched.Local, MayBlock: w.s[f+fSub] == syncWait}
			},
			future:     futureSync,
			describe:   describeSync,
			raisable:   func(sub slot) bool { return sub == syncUse },
			mayKeepGIL: func(sub slot) bool { return sub == syncCheckAbort },
			barrier:    true,
			enablers: func(w *World, t int, st *stmt, buf []sched.ThreadID) []sched.ThreadID {
				return append(buf, sched.ThreadID(w.p.hostOf(t)))
			},
		},
		sRaise: {
			name:      "raise",
			local:     true,
			execLocal: func(w *World, t int, st *stmt) { w.raise(t, KernelError) },
			exec: func(w *World, t, f int, cd *code, st *stmt) {
				w.cache.ev.Raised = KernelError
				w.raise(t, KernelError)
			},
			future: futureLocal,
		},
		sSetContext: {
			name: "set-context",
			exec: func(w *World, t, f int, cd *code, st *stmt) {
				if !w.p.Protocol.ThreadContext {
					w.s[w.p.lay.ctx] = slot(Fake(st.arg))
					if w.Trace {
						w.effect("_kernel_context = %s", Fake(st.arg))
					}
				}
				w.nextStmt(f)
				w.land(t, landContext) // the generator's yield, next() returned in __enter__
			},
			footprint: contextWriteFootprint,
			future:    futureContextWrite,
			describe: func(p *Program, ev *Event, cd *code, st *stmt) {
				ev.Where, ev.Bytecode = "kernel.py", "STORE_GLOBAL _kernel_context"
				if p.Protocol.ThreadContext {
					ev.Line, ev.Bytecode = 93, "CALL (FakeCUDAModule); STORE_FAST fake_cuda_module"
				}
			},
		},
		sLaunch: {
			name:      "launch",
			local:     true,
			execLocal: func(w *World, t int, st *stmt) { w.push(t, st.arg, Fake(w.p.codes[st.arg].launch)) },
			exec: func(w *World, t, f int, cd *code, st *stmt) {
				w.push(t, st.arg, Fake(w.p.codes[st.arg].launch))
			},
			future:   func(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) { sc.call(t, st.arg) },
			launches: true,
		},
		sResetContext: {
			name:      "reset-context",
			exec:      func(w *World, t, f int, cd *code, st *stmt) { w.execResetContext(t, f, st) },
			footprint: contextWriteFootprint,
			future:    futureContextWrite,
			describe: func(p *Program, ev *Event, cd *code, st *stmt) {
				ev.Where, ev.Bytecode = "kernel.py", "STORE_GLOBAL _kernel_context"
				if p.Protocol.ThreadContext {
					ev.Bytecode = "RETURN_VALUE"
				}
			},
			resetsContext: true,
		},
		sCheckContext: {
			name: "check-context",
			exec: func(w *World, t, f int, cd *code, st *stmt) {
				ctx := Value(w.s[w.p.lay.ctx])
				if w.Trace {
					w.effect("_kernel_context is %s", ctx)
				}
				if ctx != None {
					w.skipLaunch(f, st)
					return
				}
				w.nextStmt(f)
			},
			footprint: contextReadFootprint,
			future:    futureContextRead,
			describe: func(p *Program, ev *Event, cd *code, st *stmt) {
				ev.Where, ev.Line, ev.Bytecode = "kernel.py:31", 31, "LOAD_GLOBAL _kernel_context; POP_JUMP_IF_NONE (else RAISE_VARARGS AssertionError)"
			},
			afterDeviceCheck: func(w *World, st *stmt) {
				if w.Trace {
					w.effect("lands in FakeCUDAKernel.__call__ after its device check read None (normalize_kernel_dimensions's RESUME): the launch does not start; the caller goes on")
				}
				w.endLaunch(st.arg)
				w.cache.ev.skipped = true // the step wrote other threads (forgetHostWrites)
			},
		},
		sDeviceCheck: {
			name:      "device-check",
			exec:      func(w *World, t, f int, cd *code, st *stmt) { w.execDeviceCheck(t, f, st) },
			footprint: contextReadFootprint,
			future:    futureContextRead,
			describe: func(p *Program, ev *Event, cd *code, st *stmt) {
				ev.Where, ev.Line, ev.Bytecode = "kernel.py:84", 84, "LOAD_ATTR _device; POP_JUMP_IF_TRUE; LOAD_GLOBAL _kernel_context; POP_JUMP_IF_FALSE"
			},
		},
		sInline: {
			name:      "inline",
			exec:      func(w *World, t, f int, cd *code, st *stmt) { w.execCall(t, st) },
			footprint: contextReadFootprint,
			future: func(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
				// the kernel run as a device function (kernel.py:85-86)
				sc.step(futStep{fp: sched.Footprint{Object: sc.w.p.lay.objContext, Access: sched.Read}})
				sc.call(t, st.arg)
			},
			describe: func(p *Program, ev *Event, cd *code, st *stmt) {
				ev.Where, ev.Line, ev.Bytecode = "kernel.py:85", 85, "LOAD_GLOBAL _kernel_context (_get_kernel_context); CALL (swapped_cuda_module)"
			},
			callLike: true,
			afterDeviceCheck: func(w *World, st *stmt) { // the check found a fake and ended the launch already
				if w.Trace {
					w.effect("lands in FakeCUDAKernel.__call__ after its device check read a fake (_get_kernel_context's RESUME): the kernel does not run inline; the caller goes on")
				}
			},
		},
		sStart: {
			name:      "start",
			exec:      func(w *World, t, f int, cd *code, st *stmt) { w.execStart(t, f, st) },
			footprint: func(*World, int, *code, *stmt) sched.Footprint { return sched.Footprint{Access: sched.Local} },
			watches:   true,
			future:    futureLocal,
			describe: func(p *Program, ev *Event, cd *code, st *stmt) {
				ev.Where, ev.Text, ev.Bytecode = "kernel.py", p.startText[ev.started], "CALL (Thread.start)"
			},
		},
		sPoll: {
			name:  "poll",
			exec:  func(w *World, t, f int, cd *code, st *stmt) { w.poll(t, f, st.arg) },
			ready: func(w *World, t, f int, st *stmt) bool { return w.pollReady(st.arg) },
			footprint: func(*World, int, *code, *stmt) sched.Footprint {
				return sched.Footprint{Access: sched.Local, MayBlock: true}
			},
			watches: true,
			future: func(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
				if sc.noDeaths {
					sc.cut(futCut{kind: cutPoll, arg: st.arg})
				}
				sc.step(futStep{fp: sched.Footprint{Access: sched.Local}, poll: 1 + st.arg})
			},
			describe: func(p *Program, ev *Event, cd *code, st *stmt) {
				ev.Where, ev.Bytecode = "kernel.py", "FOR_ITER; LOAD_ATTR (polling)"
				if ev.pollText != pollNone {
					ev.Text = pollTexts[ev.pollText]
				}
			},
			polls: true,
			enablers: func(w *World, t int, st *stmt, buf []sched.ThreadID) []sched.ThreadID {
				for _, u := range w.p.blockThreads[st.arg] {
					b := w.thread(u)
					if w.s[b+tStatus] != finished && w.s[b+tBlocked] == 0 {
						buf = append(buf, sched.ThreadID(u))
					}
				}
				return buf
			},
		},
		// The fault pseudo-threads' statements run through interrupt()
		// and raiseMove() (interpret), never through exec; their rows say
		// when they are ready and what they touch.
		sInterrupt: {
			name:  "interrupt",
			ready: func(w *World, t, f int, st *stmt) bool { return w.s[w.thread(t)+tEvent] == 1 },
		},
		sRaiseFault: {name: "raise-fault"},
	}
}

// rowOf is statement st's row.
func rowOf(st *stmt) *stmtKindRow { return &stmtKinds[st.kind] }

// stmtAt is the statement frame f's code is at, and its code.
func (w *World) stmtAt(f int) (*code, *stmt) {
	cd := &w.p.codes[w.s[f+fCode]]
	return cd, &cd.stmts[w.s[f+fBody]]
}

// bodyStmt is the statement thread t's top frame is at in a body, or nil
// when the thread runs a protocol listing or is past its body's end.
func (w *World) bodyStmt(t int) *stmt {
	f := w.top(t)
	if w.s[f+fInBody] != 1 {
		return nil
	}
	stmts := w.p.codes[w.s[f+fCode]].stmts
	if b := int(w.s[f+fBody]); b < len(stmts) {
		return &stmts[b]
	}
	return nil
}

// nextStmt moves frame f on to its body's next statement.
func (w *World) nextStmt(f int) {
	w.s[f+fBody]++
	w.s[f+fSub] = 0
}

// noExec panics: a statement kind whose row has no exec was run.
func noExec(st *stmt) {
	panic(fmt.Sprintf("model: statement kind %s has no semantics", rowOf(st).name))
}

// The rows' shared pieces: a device call (or the kernel run inline) and
// the host's reads and writes of the kernel context, which a protocol
// that Dispatches (kernel.py patched: no module-level context) reads and
// writes no more.

func contextCallFootprint(w *World, f int, cd *code, st *stmt) sched.Footprint {
	if w.p.Protocol.ThreadContext {
		return sched.Footprint{Access: sched.Local} // the thread's own context
	}
	return sched.Footprint{Object: w.p.lay.objContext, Access: sched.Read}
}

func contextReadFootprint(w *World, f int, cd *code, st *stmt) sched.Footprint {
	return sched.Footprint{Object: w.p.lay.objContext, Access: sched.Read}
}

func contextWriteFootprint(w *World, f int, cd *code, st *stmt) sched.Footprint {
	if w.p.Protocol.ThreadContext {
		return sched.Footprint{Access: sched.Local} // no shared context
	}
	return sched.Footprint{Object: w.p.lay.objContext, Access: sched.Write}
}

func futureLocal(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
	sc.step(futStep{fp: sched.Footprint{Access: sched.Local}})
}

func futureContextRead(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
	// the host's test of _kernel_context (kernel.py:84, :31); a launch it
	// skips ends threads of its own that never started
	sc.step(futStep{fp: sched.Footprint{Object: sc.w.p.lay.objContext, Access: sched.Read}})
}

func futureContextWrite(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
	if sc.w.p.Protocol.ThreadContext {
		sc.step(futStep{fp: sched.Footprint{Access: sched.Local}}) // no shared context
		return
	}
	sc.step(futStep{fp: sched.Footprint{Object: sc.w.p.lay.objContext, Access: sched.Write}})
}

// contextCall is a device call's futures: _get_kernel_context(), then the
// call.
func (sc *futureScan) contextCall(t, c int) {
	if sc.w.p.Protocol.ThreadContext {
		sc.step(futStep{fp: sched.Footprint{Access: sched.Local}}) // the thread's own context
	} else {
		sc.step(futStep{fp: sched.Footprint{Object: sc.w.p.lay.objContext, Access: sched.Read}})
	}
	sc.call(t, c)
}

func futureSync(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
	l := &sc.w.p.lay
	local := futStep{fp: sched.Footprint{Access: sched.Local}}
	// its first sub-step reads cuda from the module's globals
	// (LOAD_GLOBAL cuda; LOAD_METHOD syncthreads); taken as still ahead
	// until the barrier's wait has passed, which errs on the side of a
	// conflict
	passed := b == from && sub > syncWait
	if !passed {
		sc.step(futStep{fp: sched.Footprint{Object: l.objGlobals + cd.module, Access: sched.Read}})
	}
	sc.step(local)
	if !passed && sc.w.s[sc.w.thread(t)+tEvent] == 0 {
		// the barrier's wait, which only the host's poll releases
		sc.cut(futCut{kind: cutHost, arg: sc.w.p.hostOf(t)})
		sc.step(local)
	}
}

func describeCall(p *Program, ev *Event, cd *code, st *stmt) {
	ev.Bytecode = "LOAD_GLOBAL _kernel_context; CALL (FakeCUDAKernel.__call__)"
	if p.Protocol.ThreadContext {
		ev.Bytecode = "CALL (_get_kernel_context: the thread's own); CALL (FakeCUDAKernel.__call__)"
	}
	if p.isHostCode(ev.code) {
		// FakeCUDAKernel.__call__'s own line, run by the host
		ev.Where, ev.Line = "kernel.py:85", 85
	}
}

func describeSync(p *Program, ev *Event, cd *code, st *stmt) {
	if ev.sub == syncUse {
		ev.Bytecode = "LOAD_GLOBAL; LOAD_METHOD syncthreads"
		ev.Name = p.Scenario.Modules[cd.module].Names[st.arg]
		return
	}
	l := syncLines[ev.sub]
	ev.Where, ev.Line, ev.Text, ev.Bytecode = fmt.Sprintf("kernel.py:%d", l.line), l.line, l.text, "LOAD_ATTR/STORE_ATTR"
}
