package pyvm

// with statements and exception handling: BEFORE_WITH, WITH_EXCEPT_START,
// PUSH_EXC_INFO, POP_EXCEPT, RERAISE, CHECK_EXC_MATCH, RAISE_VARARGS.

// excItem is where the thread's current handled exception lives: the
// innermost running generator's frame (gi_exc_state), else the thread's
// base (CPython's exc_info chain).
func (x *exec) excItem() *Value {
	th := &x.s.threads[x.t]
	for i := len(th.frames) - 1; i >= 0; i-- {
		fv := ref(th.frames[i])
		if fr := x.s.heap.get(fv).(*frameObj); fr.gen.K == KindRef {
			return &x.s.heap.mut(fv).(*frameObj).excInfo
		}
	}
	return &th.excBase
}

// currentExc is the exception a bare raise re-raises: the innermost
// handled one along the chain, or Undef.
func (x *exec) currentExc() Value {
	th := &x.s.threads[x.t]
	for i := len(th.frames) - 1; i >= 0; i-- {
		if fr := x.s.heap.get(ref(th.frames[i])).(*frameObj); fr.gen.K == KindRef {
			if fr.excInfo.K != KindUndef && fr.excInfo.K != KindNone {
				return fr.excInfo
			}
		}
	}
	if th.excBase.K != KindNone {
		return th.excBase
	}
	return undef
}

// opPushExcInfo: the handled exception so far is saved on the stack under
// the new one, which becomes the handled exception.
func opPushExcInfo(x *exec) {
	f := x.f
	v := f.pop()
	item := x.excItem()
	prev := *item
	if prev.K == KindUndef {
		prev = None
	}
	*item = v
	x.f.push(prev)
	x.f.push(v)
}

// opPopExcept restores the handled exception PUSH_EXC_INFO saved.
func opPopExcept(x *exec) {
	v := x.f.pop()
	*x.excItem() = v
}

// opReraise raises the exception on top. With an oparg CPython also
// restores the frame's lasti from the stack, but only for the traceback's
// line: the exception table is searched for the RERAISE itself (3.11
// ceval.c and 3.12 bytecodes.c: exception_unwind uses next_instr - 1), as
// here.
func opReraise(x *exec) { x.exc = x.f.pop() }

// opCheckExcMatch: isinstance(exception, the class on top).
func opCheckExcMatch(x *exec) {
	typ := x.f.pop()
	exc := x.f.top()
	match, ok := x.excMatches(exc, typ)
	if ok {
		x.f.push(Bool(match))
	}
}

func (x *exec) excMatches(exc, typ Value) (bool, bool) {
	if items, ok := x.tupleItems(typ); ok {
		for _, t := range items {
			m, ok := x.excMatches(exc, t)
			if !ok || m {
				return m, ok
			}
		}
		return false, true
	}
	if !x.isExcType(typ) {
		x.raise(bTypeError, "catching classes that do not inherit from BaseException is not allowed")
		return false, false
	}
	return x.classIsSubtype(x.typeOf(exc), typ), true
}

// isExcType reports whether t is an exception class.
func (x *exec) isExcType(t Value) bool {
	if t.K == KindBuiltin {
		return builtinTable[t.X].kind == kindExcType
	}
	if t.K == KindRef {
		if _, ok := x.s.heap.get(t).(*classObj); ok {
			return x.classIsSubtype(t, builtin(bBaseException))
		}
	}
	return false
}

// opRaiseVarargs: raise (0: re-raise the handled exception), raise exc
// (1), raise exc from cause (2).
func opRaiseVarargs(x *exec) {
	f := x.f
	var cause Value
	switch x.in.Arg {
	case 0:
		cur := x.currentExc()
		if cur.K == KindUndef {
			x.raise(bRuntimeError, "No active exception to reraise")
			return
		}
		x.exc = cur
		return
	case 2:
		cause = f.pop()
	}
	exc, ok := x.makeExc(f.pop())
	if !ok {
		return
	}
	if cause.K != KindUndef {
		c := cause
		if c.K != KindNone {
			if c, ok = x.makeExc(c); !ok {
				return
			}
		} else {
			c = undef
		}
		x.s.heap.mut(exc).(*excObj).cause = c
	}
	x.exc = exc
}

// makeExc is the exception `raise v` raises: v itself, or v() for a class.
func (x *exec) makeExc(v Value) (Value, bool) {
	if v.K == KindBuiltin && builtinTable[v.X].kind == kindExcType {
		return x.newExcArgs(v), true
	}
	if v.K == KindRef {
		if _, ok := x.s.heap.get(v).(*excObj); ok {
			return v, true
		}
	}
	x.raise(bTypeError, "exceptions must derive from BaseException")
	return undef, false
}

// opBeforeWith looks up the manager's __exit__ (pushed, bound) and
// __enter__, and calls __enter__: a lock's acquire blocks here when the
// lock is held; a @contextmanager's __enter__ runs its generator.
func opBeforeWith(x *exec) {
	f := x.f
	mgr := f.pop()
	enter, r1 := x.getAttr(mgr, x.mustStr("__enter__"))
	exit, r2 := x.getAttr(mgr, x.mustStr("__exit__"))
	if r1 == attrMissing || r2 == attrMissing {
		x.exc = undef
		x.raise(bTypeError, "'"+x.typeName(mgr)+"' object does not support the context manager protocol")
		return
	}
	if r1 != attrMethod || r2 != attrMethod {
		if x.exc.K == KindUndef {
			x.unsupported("a context manager whose __enter__ or __exit__ is not a method")
		}
		return
	}
	f.push(x.bind(exit, mgr))
	v, st := x.invoke(enter, []Value{mgr}, nil, siteQuiet)
	switch st {
	case statusDone:
		f.push(v)
	case statusBlocked:
		f.pop()
		f.push(mgr)
		x.blocked = true
	}
}

// opWithExceptStart calls __exit__(type, value, traceback) for the
// exception on top: [exit, lasti, previous exception, exception] (the
// traceback is passed as None: the interpreter keeps none).
func opWithExceptStart(x *exec) {
	f := x.f
	val := f.peek(1)
	exit := f.peek(4)
	v, st := x.invoke(exit, []Value{x.typeOf(val), val, None}, nil, siteQuiet)
	switch st {
	case statusDone:
		f.push(v)
	case statusBlocked:
		x.blocked = true
	}
}
