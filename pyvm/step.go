package pyvm

// StepInfo is what one step did, for the embedder: which instruction (or
// native state) ran, the shared locations it touched, whether it ended at
// an eval-breaker check, whether it could not run (blocked) and whether it
// ended the thread's task.
type StepInfo struct {
	Thread int
	// Code and Instr name the instruction that ran (Instr indexes
	// Code.Instrs); Code is nil for a native step, which Native names
	// ("contextlib _GeneratorContextManager.__enter__: next(self.gen)").
	Code   *Code
	Instr  int
	Native string
	// Accesses are the locations of shared objects the step read or wrote
	// (footprint.go); none for a step that touched only its own frame and
	// the objects its thread made and has not published.
	Accesses []Access
	// Locks are the acquires and releases of threading locks the step
	// made, in order (a lock's Accesses write its whole state as well).
	Locks []LockOp
	// Check: the step ended at an eval-breaker check of this CPython
	// version (the opcode functions call check where CPython's
	// ceval does): the GIL may pass to another thread here, and
	// an asynchronous exception (Interrupt) may be raised here.
	Check bool
	// Blocked: the step could not run (a lock acquire on a held lock);
	// nothing changed, and the thread's next step is the same one.
	Blocked bool
	// Done: the thread's task ended with this step (State.Result).
	Done bool
	// Fault: the step needed something the interpreter does not model
	// (State.Fault); the thread stopped.
	Fault string
	// x is the step's working set, kept here rather than made by each
	// step: the opcode table's calls take its address, so a local one
	// went to the heap, a tenth of a search's allocations
	// (BenchmarkVerdict/*/transactions, -memprofile).
	x exec
}

// LockOp is one acquire or release of a Lock or RLock.
type LockOp struct {
	Lock    Value
	Acquire bool // else a release
	// Free: the lock is unlocked after the op (a Lock's release, an
	// RLock's outermost one).
	Free bool
}

// Shared reports whether the step touched a location another thread can
// touch: an Access that is not Const, or a block.
func (i *StepInfo) Shared() bool {
	if i.Blocked {
		return true
	}
	for _, a := range i.Accesses {
		if !a.Const {
			return true
		}
	}
	return false
}

// Where is "file:line OPNAME" of the step's instruction, or its native
// label.
func (i *StepInfo) Where() string {
	if i.Code == nil {
		return i.Native
	}
	return i.Code.Where(i.Instr) + " " + i.Code.Instrs[i.Instr].OpName
}

// exec is one step's working set: the thread, its top frame (writable),
// the instruction and the step's report.
type exec struct {
	p    *Program
	s    *State
	t    int
	fv   Value // the top frame
	f    *frameObj
	in   *Instr
	info *StepInfo
	// exc is the exception being raised (Undef: none); blocked says the
	// step must be undone because it would block.
	exc     Value
	blocked bool
	// lookup, when set, is the instruction whose exception-table entry
	// the top frame's handler is searched for, instead of its lasti (an
	// interrupt after a backward jump, before 3.13: Program.Interrupt).
	lookup    int32
	lookupSet bool
}

// Step runs thread t's next instruction (or native state) on s, and says
// what it did in info (whose Accesses slice it reuses). The thread must
// be Running.
func (p *Program) Step(s *State, t int, info *StepInfo) {
	acc, locks := info.Accesses[:0], info.Locks[:0]
	*info = StepInfo{Thread: t, Accesses: acc, Locks: locks}
	th := &s.threads[t]
	if !th.busy {
		panic("pyvm: Step on a thread with no task (State.Status is Idle)")
	}
	x := &info.x
	*x = exec{p: p, s: s, t: t, info: info}
	x.load()
	if x.f.native != 0 {
		state, tmp := x.f.pc, len(x.f.tmp)
		x.nativeStep()
		if x.blocked {
			x.load()
			x.f.pc = state
			x.f.tmp = x.f.tmp[:tmp]
			info.Blocked = true
			return
		}
	} else {
		f := x.f
		i, lasti := f.pc, f.lasti
		in := &f.code.Instrs[i]
		f.lasti, f.pc = i, i+1
		x.in = in
		info.Code, info.Instr = f.code, int(i)
		p.ops.run[in.Op](x)
		if x.blocked {
			f.pc, f.lasti = i, lasti
			info.Blocked = true
			return
		}
	}
	if x.exc == faultMark {
		th.busy = false
		info.Fault = s.fault
		return
	}
	if x.exc.K != KindUndef {
		x.unwind()
	}
	info.Done = !th.busy
}

// load makes the thread's top frame x.f, writable.
func (x *exec) load() {
	fr := x.s.threads[x.t].frames
	x.fv = ref(fr[len(fr)-1])
	x.f = x.s.heap.mut(x.fv).(*frameObj)
}

// pushFrame makes frame fv (already set up) the thread's top frame.
func (x *exec) pushFrame(fv Value) {
	th := &x.s.threads[x.t]
	th.frames = append(th.frames, fv.X)
	x.load()
}

// unwind raises x.exc: in the top frame's handler if its exception table
// has one for the instruction that raised, otherwise out of the frame into
// its caller, and so on, all in this step (as CPython unwinds with no
// check between frames).
func (x *exec) unwind() {
	for x.exc.K != KindUndef && x.f != nil {
		f := x.f
		if f.native == 0 {
			at := f.lasti
			if x.lookupSet {
				at, x.lookupSet = x.lookup, false
			}
			if e, ok := f.code.handler(int(at)); ok {
				f.stack = f.stack[:e.Depth]
				if e.Lasti {
					f.push(Value{K: KindLasti, X: f.lasti})
				}
				f.push(x.exc)
				f.pc = int32(e.Target)
				x.exc = undef
				return
			}
		}
		exc := x.exc
		x.exc = undef
		x.finish(raised, exc)
	}
}

// finish ends the top frame's run: it returned v, yielded v (a generator
// frame, which its generator keeps) or raised v. The frame leaves the
// thread and its caller takes the outcome as the frame's ret says; with
// no caller the thread's task is done.
func (x *exec) finish(how outcome, v Value) {
	f := x.f
	mode := f.ret
	if f.gen.K == KindRef {
		g := x.s.heap.mut(f.gen).(*genObj)
		if how == yielded {
			g.state = genSuspended
		} else {
			g.state = genDone
			g.frame = undef
			if how == raised && x.p.Version == V311 && x.isInstance(v, bStopIteration) {
				// 3.11 turns it into RuntimeError in C (gen_send_ex2);
				// 3.12 and later do it in bytecode (CALL_INTRINSIC_1
				// INTRINSIC_STOPITERATION_ERROR).
				v = x.newExc(bRuntimeError, "generator raised StopIteration")
			}
		}
	}
	th := &x.s.threads[x.t]
	th.frames = th.frames[:len(th.frames)-1]
	if len(th.frames) == 0 {
		th.busy = false
		th.result, th.raised = undef, undef
		if how == raised {
			th.raised = v
		} else {
			th.result = v
		}
		x.f = nil
		return
	}
	x.load()
	x.deliver(mode, how, v)
}

// deliver hands a callee's outcome to the top frame (its caller) as mode
// says.
func (x *exec) deliver(mode retMode, how outcome, v Value) {
	switch mode {
	case retPush, retPushCheck:
		if how == raised {
			x.exc = v
			return
		}
		x.f.push(v)
		if mode == retPushCheck {
			x.check()
		}
	case retNext, retNextCheck:
		switch how {
		case yielded:
			x.f.push(v)
			if mode == retNextCheck {
				x.check()
			}
		case returned:
			x.exc = x.newStopIteration(v)
		case raised:
			x.exc = v
		}
	case retForIter:
		switch how {
		case yielded:
			x.f.push(v)
		case returned:
			x.forIterDone()
		case raised:
			x.exc = v
		}
	case retNative:
		x.nativeResume(how, v)
	case retNativeNext:
		switch how {
		case yielded:
			x.nativeResume(returned, v)
		case returned:
			x.nativeResume(raised, x.newStopIteration(v))
		default:
			x.nativeResume(raised, v)
		}
	default:
		panic("pyvm: a frame with no return mode")
	}
}

// check marks the step as ending at an eval-breaker check.
func (x *exec) check() { x.info.Check = true }
