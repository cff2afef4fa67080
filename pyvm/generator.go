package pyvm

// The generator protocol, as CPython 3.11+ runs it: calling a generator
// function runs its frame up to RETURN_GENERATOR, which makes the
// generator and hands it back with the frame inside; next(), send(),
// throw() and FOR_ITER push that frame back on the thread and run it
// until YIELD_VALUE or its end (gen_send_ex2 in Objects/genobject.c).

// resumeGen resumes generator gv, sending send (None for next()) or, when
// throw is set, raising throw at the point where it stopped. When the
// generator's frame runs, it is pushed and its outcome reaches the caller
// through mode later (ran is true). When it cannot run (it is done or
// running, or a first send is not None), the outcome is returned now:
// returned (the generator is exhausted) or raised.
func (x *exec) resumeGen(gv, send, throw Value, mode retMode) (how outcome, v Value, ran bool) {
	g := x.s.heap.get(gv).(*genObj)
	x.write(gv, LocWhole, undef)
	switch g.state {
	case genRunning:
		return raised, x.newExc(bValueError, "generator already executing"), false
	case genDone:
		if throw.K != KindUndef {
			return raised, throw, false
		}
		return returned, None, false
	case genCreated:
		if throw.K != KindUndef {
			// raised before the first instruction: no handler covers it
			g = x.s.heap.mut(gv).(*genObj)
			g.state, g.frame = genDone, undef
			return raised, throw, false
		}
		if send.K != KindNone {
			return raised, x.newExc(bTypeError, "can't send non-None value to a just-started generator"), false
		}
	}
	g = x.s.heap.mut(gv).(*genObj)
	g.state = genRunning
	fv := g.frame
	fr := x.s.heap.mut(fv).(*frameObj)
	fr.ret = mode
	x.pushFrame(fv)
	if throw.K != KindUndef {
		x.exc = throw
		return 0, undef, true
	}
	x.f.push(send)
	return 0, undef, true
}

// resumeForNative resumes a generator for the top native frame as next()
// would: an outcome that comes at once reaches nativeResume at once.
func (x *exec) resumeForNative(gv, send, throw Value) {
	how, v, ran := x.resumeGen(gv, send, throw, retNativeNext)
	if ran {
		return
	}
	if how == returned {
		how, v = raised, x.newStopIteration(v)
	}
	x.nativeResume(how, v)
}

// returnGenerator is RETURN_GENERATOR: the running frame becomes the
// frame of a new generator, which its caller gets as the call's value.
func (x *exec) returnGenerator() {
	fv := x.fv
	g := x.s.heap.alloc(&genObj{frame: fv, state: genCreated, code: x.f.code}, x.t)
	x.finish(returned, g)
	x.s.heap.mut(fv).(*frameObj).gen = g
}

// forIterDone ends a FOR_ITER loop whose iterator is exhausted: the
// iterator is popped and the loop's exit taken (3.12 skips the END_FOR
// the exit starts with; 3.13 also the POP_TOP after it).
func (x *exec) forIterDone() {
	f := x.f
	in := &f.code.Instrs[f.lasti]
	f.pop()
	target := in.Target
	switch {
	case x.p.Version.AtLeast(V313):
		target += 2
	case x.p.Version.AtLeast(V312):
		target++
	}
	f.pc = int32(target)
}
