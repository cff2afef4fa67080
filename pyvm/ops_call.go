package pyvm

// Calls and function objects, per version.

// opKwNames is 3.11's and 3.12's KW_NAMES: the next CALL's keyword names.
func opKwNames(x *exec) { x.f.kwnames = x.f.code.vals[x.in.Arg] }

// opCall311 is 3.11's and 3.12's CALL n: under the n arguments, two slots:
// [method, self] (self becomes the first argument) or [NULL, callable].
// The last len(kwnames) arguments are keyword arguments.
func opCall311(x *exec) {
	f := x.f
	n := x.in.Arg
	kwnames := f.kwnames
	f.kwnames = undef
	saved := append([]Value(nil), f.stack[len(f.stack)-n-2:]...)
	args := saved[2:]
	fn := saved[0]
	if fn.K == KindNull {
		fn = saved[1]
	} else {
		args = saved[1:]
	}
	f.stack = f.stack[:len(f.stack)-n-2]
	x.call(fn, args, kwnames, saved)
}

// opCall313 is 3.13's CALL n: [callable, self or NULL] under the n
// arguments.
func opCall313(x *exec) {
	x.call313(x.in.Arg, undef)
}

// opCallKw313 is 3.13's CALL_KW n: the keyword names' tuple on top.
func opCallKw313(x *exec) {
	kw := x.f.pop()
	x.call313(x.in.Arg, kw)
	if x.blocked {
		x.f.push(kw)
	}
}

func (x *exec) call313(n int, kwnames Value) {
	f := x.f
	saved := append([]Value(nil), f.stack[len(f.stack)-n-2:]...)
	fn := saved[0]
	args := saved[2:]
	if saved[1].K != KindNull {
		args = saved[1:]
	}
	f.stack = f.stack[:len(f.stack)-n-2]
	x.call(fn, args, kwnames, saved)
}

// call calls fn for CALL: a C callee's value is pushed and the eval
// breaker checked; a Python callee's frame hands its value back later. A
// blocked call puts the stack back as it was.
func (x *exec) call(fn Value, args []Value, kwnames Value, saved []Value) {
	var kw []kwArg
	if kwnames.K != KindUndef {
		names, _ := x.tupleItems(kwnames)
		k := len(args) - len(names)
		for i, nm := range names {
			kw = append(kw, kwArg{name: nm, val: args[k+i]})
		}
		args = args[:k]
	}
	caller := x.f
	v, st := x.invoke(fn, args, kw, siteCall)
	switch st {
	case statusDone:
		caller.push(v)
		x.check()
	case statusBlocked:
		caller.stack = append(caller.stack, saved...)
		caller.kwnames = kwnames
		x.blocked = true
	}
}

// opCallFunctionEx311 is 3.11's and 3.12's CALL_FUNCTION_EX: [NULL,
// callable, args tuple, kwargs dict if oparg&1]. It checks the eval
// breaker after any callee returned.
func opCallFunctionEx311(x *exec) {
	f := x.f
	var kwargs Value
	if x.in.Arg&1 != 0 {
		kwargs = f.pop()
	}
	callargs := f.pop()
	fn := f.pop()
	f.pop() // NULL
	x.callEx(fn, callargs, kwargs, siteCallEx)
}

// opCallFunctionEx313 is 3.13's: [callable, NULL, args, kwargs]; a Python
// callee runs inline (no check after it), anything else is checked.
func opCallFunctionEx313(x *exec) {
	f := x.f
	var kwargs Value
	if x.in.Arg&1 != 0 {
		kwargs = f.pop()
	}
	callargs := f.pop()
	f.pop() // NULL
	fn := f.pop()
	site := siteCallEx
	if fn.K == KindRef {
		if _, ok := x.s.heap.get(fn).(*funcObj); ok {
			site = siteCall
		}
	}
	x.callEx(fn, callargs, kwargs, site)
}

func (x *exec) callEx(fn, callargs, kwargs Value, site callSite) {
	args, ok := x.seqItems(callargs)
	if !ok || x.isFrozenset(callargs) {
		args, ok = x.iterateNow(callargs)
		if !ok {
			if x.exc.K == KindUndef {
				x.raise(bTypeError, "Value after * must be an iterable, not "+x.typeName(callargs))
			}
			return
		}
	}
	args = append([]Value(nil), args...)
	var kw []kwArg
	if kwargs.K != KindUndef {
		d, ok := x.asDict(kwargs)
		if !ok {
			x.unsupported("** of a " + x.typeName(kwargs))
			return
		}
		for _, e := range d.entries {
			if !e.dead {
				kw = append(kw, kwArg{name: e.key, val: e.val})
			}
		}
	}
	caller := x.f
	v, st := x.invoke(fn, args, kw, site)
	switch st {
	case statusDone:
		caller.push(v)
		x.check()
	case statusBlocked:
		x.unsupported("a blocking call through f(*args)")
	}
}

// Function attributes MAKE_FUNCTION (3.11, 3.12: its oparg's flags) and
// SET_FUNCTION_ATTRIBUTE (3.13) set.
const (
	fnDefaults   = 0x01
	fnKwDefaults = 0x02
	fnAnnots     = 0x04
	fnClosure    = 0x08
)

// opMakeFunction makes a function of the code on top; in 3.11 and 3.12
// its flags say which of closure, annotations, kwdefaults and defaults
// sit under it (in that order from the top).
func opMakeFunction(x *exec) {
	f := x.f
	code := x.p.Codes[f.pop().X]
	fn := &funcObj{code: code, globals: f.globals}
	if x.p.Version.Less(V313) {
		flags := x.in.Arg
		for _, bit := range []int{fnClosure, fnAnnots, fnKwDefaults, fnDefaults} {
			if flags&bit != 0 {
				x.setFunctionAttr(fn, bit, f.pop())
			}
		}
	}
	f.push(x.s.heap.alloc(fn, x.t))
}

// opSetFunctionAttribute is 3.13's: [attribute, function] -> function.
func opSetFunctionAttribute(x *exec) {
	f := x.f
	fv := f.pop()
	attr := f.pop()
	x.setFunctionAttr(x.s.heap.mut(fv).(*funcObj), x.in.Arg, attr)
	f.push(fv)
}

func (x *exec) setFunctionAttr(fn *funcObj, bit int, v Value) {
	switch bit {
	case fnClosure:
		fn.closure = v
	case fnKwDefaults:
		fn.kwDefaults = v
	case fnDefaults:
		items, _ := x.tupleItems(v)
		fn.defaults = append([]Value(nil), items...)
	}
}

func opReturnGenerator(x *exec) { x.returnGenerator() }

func opYieldValue(x *exec) { x.finish(yielded, x.f.pop()) }
