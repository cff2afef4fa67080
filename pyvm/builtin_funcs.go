package pyvm

import "strconv"

// The builtins' calls. Each checks its arguments as CPython does (the
// messages of the cases the tests meet are CPython's), and records what
// it touches.

// noKw raises CPython's "f() takes no keyword arguments".
func (x *exec) noKw(name string, kw []kwArg) bool {
	if len(kw) > 0 {
		x.raise(bTypeError, name+"() takes no keyword arguments")
		return false
	}
	return true
}

// nargs checks that a builtin got between lo and hi positional arguments
// (self not counted for a method).
func (x *exec) nargs(name string, n, lo, hi int) bool {
	if n >= lo && n <= hi {
		return true
	}
	switch {
	case lo == hi && lo == 1:
		x.raise(bTypeError, name+"() takes exactly one argument ("+strconv.Itoa(n)+" given)")
	case lo == hi && lo == 0:
		x.raise(bTypeError, name+"() takes no arguments ("+strconv.Itoa(n)+" given)")
	case n < lo:
		x.raise(bTypeError, name+" expected at least "+strconv.Itoa(lo)+" argument"+plural(lo, "", "s")+", got "+strconv.Itoa(n))
	default:
		x.raise(bTypeError, name+" expected at most "+strconv.Itoa(hi)+" argument"+plural(hi, "", "s")+", got "+strconv.Itoa(n))
	}
	return false
}

func done(v Value) (Value, callStatus) { return v, statusDone }

func fail() (Value, callStatus) { return undef, statusRaised }

func callObject(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	x.unsupported("object()")
	return fail()
}

func callType(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(args) != 1 || len(kw) > 0 {
		x.unsupported("type() with other than one argument")
		return fail()
	}
	return done(x.typeOf(args[0]))
}

func callBool(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("bool", kw) || !x.nargs("bool", len(args), 0, 1) {
		return fail()
	}
	if len(args) == 0 {
		return done(False)
	}
	t, ok := x.truth(args[0])
	if !ok {
		return fail()
	}
	return done(Bool(t))
}

// callStr is str() and str(v) (an exception gives its message).
func callStr(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(kw) > 0 || len(args) > 1 {
		x.unsupported("str() with an encoding")
		return fail()
	}
	if len(args) == 0 {
		return done(x.newStr(""))
	}
	if args[0].K == KindRef {
		if _, ok := x.s.heap.get(args[0]).(*instanceObj); ok {
			x.unsupported("str() of an instance")
			return fail()
		}
	}
	return done(x.newStr(x.str(args[0])))
}

func callInt(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(kw) > 0 || len(args) > 1 {
		x.unsupported("int() with a base or keywords")
		return fail()
	}
	if len(args) == 0 {
		return done(Int(0))
	}
	if !num(args[0]) {
		x.unsupported("int() of a " + x.typeName(args[0]))
		return fail()
	}
	return done(Int(args[0].X))
}

// collectOrNow makes a list of v's items: now, or through a natCollect
// frame when v is a generator (dict(genexpr), list(genexpr)).
func (x *exec) collectOrNow(v, target Value, kind int32, site callSite) ([]Value, callStatus) {
	if v.K == KindRef {
		if _, ok := x.s.heap.get(v).(*genObj); ok {
			if target.K == KindUndef {
				if kind == collectDict {
					target = x.newDict()
				} else {
					target = x.newList(nil)
				}
			}
			x.pushNative(natCollect, cMode(site), []Value{v, target, Int(kind), Int(0)}, nil)
			return nil, statusPushed
		}
	}
	items, ok := x.iterateNow(v)
	if !ok {
		return nil, statusRaised
	}
	return items, statusDone
}

func callTuple(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("tuple", kw) || !x.nargs("tuple", len(args), 0, 1) {
		return fail()
	}
	if len(args) == 0 {
		return done(x.newTuple(nil))
	}
	if x.isTuple(args[0]) && args[0].K == KindRef {
		return done(args[0])
	}
	items, st := x.collectOrNow(args[0], undef, collectTuple, site)
	if st != statusDone {
		return undef, st
	}
	return done(x.newTuple(items))
}

func callList(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("list", kw) || !x.nargs("list", len(args), 0, 1) {
		return fail()
	}
	if len(args) == 0 {
		return done(x.newList(nil))
	}
	items, st := x.collectOrNow(args[0], undef, collectList, site)
	if st != statusDone {
		return undef, st
	}
	return done(x.newList(items))
}

// callDict is dict(), dict(mapping), dict(iterable of pairs), dict(**kw).
func callDict(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.nargs("dict", len(args), 0, 1) {
		return fail()
	}
	d := x.newDict()
	if len(args) == 1 {
		if st := x.fillDict(d, args[0], collectDict, site); st != statusDone {
			if st == statusPushed && len(kw) > 0 {
				x.unsupported("dict(generator, **kwargs)")
				return fail()
			}
			return undef, st
		}
	}
	for _, k := range kw {
		x.dictSet(d, k.name, k.val)
	}
	return done(d)
}

// fillDict stores the entries of src (a mapping or an iterable of pairs)
// into d: now, or, for a generator, through a natCollect frame.
func (x *exec) fillDict(d, src Value, kind int32, site callSite) callStatus {
	if _, ok := x.asDict(src); ok {
		if !x.updateFrom(d, src) {
			return statusRaised
		}
		return statusDone
	}
	if o, ok := x.opaque(src); ok {
		x.standInUsed(o.name, "iteration")
		return statusRaised
	}
	items, st := x.collectOrNow(src, d, kind, site)
	if st != statusDone {
		if st == statusRaised && x.exc.K != KindUndef && x.isInstance(x.exc, bTypeError) {
			x.exc = undef
			x.raise(bTypeError, "'"+x.typeName(src)+"' object is not iterable")
		}
		return st
	}
	for i, it := range items {
		x.addPair(d, it, i)
		if x.exc.K != KindUndef {
			return statusRaised
		}
	}
	return statusDone
}

// callDefaultdict is collections.defaultdict(factory=None, ...).
func callDefaultdict(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	factory := None
	if len(args) > 0 {
		factory = args[0]
		args = args[1:]
	}
	if factory.K != KindNone && !x.callable(factory) {
		x.raise(bTypeError, "first argument must be callable or None")
		return fail()
	}
	d := x.s.heap.alloc(&dictObj{isDefault: true, factory: factory}, x.t)
	if len(args) > 1 {
		x.raise(bTypeError, "defaultdict expected at most 2 arguments, got "+strconv.Itoa(len(args)+1))
		return fail()
	}
	if len(args) == 1 {
		if st := x.fillDict(d, args[0], collectDict, site); st != statusDone {
			if st == statusPushed {
				x.unsupported("defaultdict(factory, generator)")
			}
			return fail()
		}
	}
	for _, k := range kw {
		x.dictSet(d, k.name, k.val)
	}
	return done(d)
}

// callable reports whether v can be called.
func (x *exec) callable(v Value) bool {
	switch v.K {
	case KindBuiltin:
		return builtinTable[v.X].call != nil
	case KindRef:
		switch x.s.heap.get(v).(type) {
		case *funcObj, *methodObj, *cmFactoryObj, *classObj, *opaqueObj:
			return true
		}
	}
	return false
}

func callRange(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("range", kw) {
		return fail()
	}
	for _, a := range args {
		if !num(a) {
			x.raise(bTypeError, "'"+x.typeName(a)+"' object cannot be interpreted as an integer")
			return fail()
		}
	}
	r := &rangeObj{step: 1}
	switch len(args) {
	case 1:
		r.stop = args[0].X
	case 2, 3:
		r.start, r.stop = args[0].X, args[1].X
		if len(args) == 3 {
			r.step = args[2].X
		}
	default:
		if len(args) == 0 {
			x.raise(bTypeError, "range expected at least 1 argument, got 0")
		} else {
			x.raise(bTypeError, "range expected at most 3 arguments, got "+strconv.Itoa(len(args)))
		}
		return fail()
	}
	if r.step == 0 {
		x.raise(bValueError, "range() arg 3 must not be zero")
		return fail()
	}
	return done(x.s.heap.alloc(r, x.t))
}

func callProperty(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(args) != 1 || len(kw) > 0 {
		x.unsupported("property() with other than a getter")
		return fail()
	}
	return done(x.s.heap.alloc(&propertyObj{fget: args[0], kind: bProperty}, x.t))
}

// descriptor is staticmethod(f) or classmethod(f).
func descriptor(kind builtinID) builtinFunc {
	return func(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
		if len(args) != 1 || len(kw) > 0 {
			x.raise(bTypeError, builtinTable[kind].name+" expected 1 argument, got "+strconv.Itoa(len(args)))
			return fail()
		}
		return done(x.s.heap.alloc(&propertyObj{fget: args[0], kind: kind}, x.t))
	}
}

// callException stands for every exception type's call (invoke calls
// excCall with the type).
func callException(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	panic("pyvm: an exception type is called through excCall")
}

// excCall is ExcType(*args).
func (x *exec) excCall(t builtinID, args []Value, kw []kwArg) (Value, callStatus) {
	if !x.noKw(builtinTable[t].name, kw) {
		return fail()
	}
	return done(x.newExcArgs(builtin(t), args...))
}

func callID(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("id", kw) || !x.nargs("id", len(args), 1, 1) {
		return fail()
	}
	if args[0].K != KindRef {
		x.unsupported("id() of a " + x.typeName(args[0]) + " (only objects with a heap identity)")
		return fail()
	}
	return done(Value{K: KindID, X: args[0].X})
}

func callLen(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("len", kw) || !x.nargs("len", len(args), 1, 1) {
		return fail()
	}
	v := args[0]
	if s, ok := x.strOf(v); ok {
		return done(Int(int32(len([]rune(s)))))
	}
	switch v.K {
	case KindConst:
		return done(Int(int32(len(x.p.consts[v.X].items))))
	case KindRef:
		switch o := x.s.heap.get(v).(type) {
		case *dictObj:
			x.read(v, LocShape, undef)
			return done(Int(o.used))
		case *viewObj:
			x.read(o.dict, LocShape, undef)
			return done(Int(x.s.heap.get(o.dict).(*dictObj).used))
		case *seqObj:
			if !o.tuple {
				x.read(v, LocWhole, undef)
			}
			return done(Int(int32(len(o.items))))
		case *rangeObj:
			return done(Int(rangeLen(o)))
		case *opaqueObj:
			x.standInUsed(o.name, "len()")
			return fail()
		}
	}
	x.raise(bTypeError, "object of type '"+x.typeName(v)+"' has no len()")
	return fail()
}

func callIsinstance(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("isinstance", kw) {
		return fail()
	}
	if len(args) != 2 {
		x.raise(bTypeError, "isinstance expected 2 arguments, got "+strconv.Itoa(len(args)))
		return fail()
	}
	r, ok := x.isinstanceOf(args[0], args[1])
	if !ok {
		return fail()
	}
	return done(Bool(r))
}

func (x *exec) isinstanceOf(v, t Value) (bool, bool) {
	if items, ok := x.tupleItems(t); ok {
		for _, it := range items {
			r, ok := x.isinstanceOf(v, it)
			if !ok || r {
				return r, ok
			}
		}
		return false, true
	}
	isType := t.K == KindBuiltin && (builtinTable[t.X].kind == kindType || builtinTable[t.X].kind == kindExcType)
	if t.K == KindRef {
		_, isType = x.s.heap.get(t).(*classObj)
	}
	if t.isBuiltin(bAllocateLock) || t.isBuiltin(bRLockFactory) {
		isType = false
	}
	if !isType {
		x.raise(bTypeError, "isinstance() arg 2 must be a type, a tuple of types, or a union")
		return false, false
	}
	return x.classIsSubtype(x.typeOf(v), t), true
}

// callNext is next(it[, default]).
func callNext(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("next", kw) || !x.nargs("next", len(args), 1, 2) {
		return fail()
	}
	it := args[0]
	if it.K == KindRef {
		switch x.s.heap.get(it).(type) {
		case *genObj:
			if len(args) == 2 {
				x.unsupported("next(generator, default)")
				return fail()
			}
			return x.resumeFrom(it, None, undef, site)
		case *iterObj:
			v, end, ok := x.next(it)
			if !ok {
				return fail()
			}
			if end {
				if len(args) == 2 {
					return done(args[1])
				}
				x.exc = x.newStopIteration(None)
				return fail()
			}
			return done(v)
		}
	}
	x.raise(bTypeError, "'"+x.typeName(it)+"' object is not an iterator")
	return fail()
}

// resumeFrom resumes a generator for a builtin called from site (next,
// send, throw): its outcome comes back as a call's.
func (x *exec) resumeFrom(g, send, throw Value, site callSite) (Value, callStatus) {
	how, v, ran := x.resumeGen(g, send, throw, nextMode(site))
	if ran {
		return undef, statusPushed
	}
	if how == returned {
		v = x.newStopIteration(v)
	}
	x.exc = v
	return fail()
}

func callIter(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("iter", kw) || !x.nargs("iter", len(args), 1, 1) {
		return fail()
	}
	it, ok := x.iter(args[0])
	if !ok {
		return fail()
	}
	return done(it)
}

func callGetattr(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("getattr", kw) || !x.nargs("getattr", len(args), 2, 3) {
		return fail()
	}
	if args[1].K != KindStr {
		x.raise(bTypeError, "attribute name must be string, not '"+x.typeName(args[1])+"'")
		return fail()
	}
	a, r := x.getAttr(args[0], args[1])
	switch r {
	case attrValue:
		return done(a)
	case attrMethod:
		return done(x.bind(a, args[0]))
	case attrMissing:
		if len(args) == 3 {
			x.exc = undef
			return done(args[2])
		}
	case attrProperty:
		x.unsupported("getattr() of a property")
	}
	return fail()
}

// callBuildClass is __build_class__(body, name, *bases): a natBuildClass
// frame runs the body.
func callBuildClass(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(kw) > 0 {
		x.unsupported("a class statement with keywords (metaclass=...)")
		return fail()
	}
	if len(args) < 2 {
		x.raise(bTypeError, "__build_class__: not enough arguments")
		return fail()
	}
	for _, b := range args[2:] {
		if b.K == KindBuiltin && !b.isBuiltin(bObject) {
			x.unsupported("a class derived from " + builtinTable[b.X].name)
			return fail()
		}
		if b.K == KindRef {
			if _, ok := x.s.heap.get(b).(*classObj); !ok {
				x.unsupported("a class derived from a " + x.typeName(b))
				return fail()
			}
		}
	}
	x.pushNative(natBuildClass, cMode(site), args, nil)
	return undef, statusPushed
}

// callContextmanager is contextlib.contextmanager(func).
func callContextmanager(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(args) != 1 || len(kw) > 0 {
		x.raise(bTypeError, "contextmanager() takes 1 positional argument but "+strconv.Itoa(len(args))+" were given")
		return fail()
	}
	return done(x.s.heap.alloc(&cmFactoryObj{fn: args[0]}, x.t))
}

// callHelper is calling a @contextmanager function: contextlib's helper,
// as a natHelper frame.
func (x *exec) callHelper(fn Value, args []Value, kw []kwArg, mode retMode) (Value, callStatus) {
	tmp := append([]Value{fn}, args...)
	x.pushNative(natHelper, mode, tmp, kw)
	if x.exc.K != KindUndef {
		return fail()
	}
	return undef, statusPushed
}

func callAllocateLock(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("allocate_lock", kw) || !x.nargs("allocate_lock", len(args), 0, 0) {
		return fail()
	}
	return done(x.s.heap.alloc(&lockObj{}, x.t))
}

func callRLock(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(args) > 0 || len(kw) > 0 {
		x.raise(bTypeError, "RLock() takes no arguments")
		return fail()
	}
	return done(x.s.heap.alloc(&lockObj{reentrant: true}, x.t))
}

// callAny is any(iterable) (all when all is set): now over a sequence,
// through a natAny frame over a generator, which it leaves suspended
// where it stopped (CPython's dropped generator is closed at dealloc,
// which a generator expression has nothing to run for).
func callAnyAll(all bool) builtinFunc {
	name := "any"
	if all {
		name = "all"
	}
	return func(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
		if !x.noKw(name, kw) || !x.nargs(name, len(args), 1, 1) {
			return fail()
		}
		if args[0].K == KindRef {
			if _, ok := x.s.heap.get(args[0]).(*genObj); ok {
				x.pushNative(natAny, cMode(site), []Value{args[0], Bool(all)}, nil)
				return undef, statusPushed
			}
		}
		items, ok := x.iterateNow(args[0])
		if !ok {
			return fail()
		}
		for _, it := range items {
			t, ok := x.truth(it)
			if !ok {
				return fail()
			}
			if t != all {
				return done(Bool(t))
			}
		}
		return done(Bool(all))
	}
}

// anyResume takes the next item of any()'s or all()'s generator.
func (x *exec) anyResume(how outcome, v Value) {
	f := x.f
	all := f.tmp[1].X != 0
	if how == raised {
		if !x.isInstance(v, bStopIteration) {
			x.exc = v
			return
		}
		x.finish(returned, Bool(all))
		return
	}
	t, ok := x.truth(v)
	if !ok {
		return
	}
	if t != all {
		x.finish(returned, Bool(t))
		return
	}
	f.pc = 0
}
