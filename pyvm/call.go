package pyvm

import "strconv"

// Calls: invoke dispatches on the callee; a Python function gets a new
// frame (no Go recursion: its instructions are later steps), a builtin
// runs in this step, or pushes a native frame when it must run Python code
// (next(gen), dict(genexpr), a context manager's __enter__).

// invoke calls fn(*args, **kw) from site.
func (x *exec) invoke(fn Value, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	switch fn.K {
	case KindBuiltin:
		d := &builtinTable[fn.X]
		if d.call == nil {
			x.raise(bTypeError, "cannot create '"+d.name+"' instances")
			return undef, statusRaised
		}
		if d.kind == kindExcType {
			return x.excCall(builtinID(fn.X), args, kw)
		}
		if d.kind == kindMethod {
			if len(args) == 0 || !x.isInstance(args[0], d.owner) && !(d.owner == bLock && x.isInstance(args[0], bRLock)) {
				got := "nothing"
				if len(args) > 0 {
					got = "a '" + x.typeName(args[0]) + "' object"
				}
				x.raise(bTypeError, "descriptor '"+d.name+"' for '"+x.nameOfType(builtin(d.owner))+"' objects doesn't apply to "+got)
				return undef, statusRaised
			}
		}
		return d.call(x, args, kw, site)
	case KindRef:
		switch o := x.s.heap.get(fn).(type) {
		case *funcObj:
			return x.callPython(fn, o, args, kw, pyMode(site))
		case *methodObj:
			all := make([]Value, 0, len(args)+1)
			all = append(append(all, o.self), args...)
			return x.invoke(o.fn, all, kw, site)
		case *cmFactoryObj:
			return x.callHelper(o.fn, args, kw, pyMode(site))
		case *classObj:
			return x.instantiate(fn, o, args, kw, site)
		case *opaqueObj:
			x.standInUsed(o.name, "call")
			return undef, statusRaised
		case *hostObj:
			x.unsupported("calling the embedder's " + o.label)
			return undef, statusRaised
		}
	}
	x.raise(bTypeError, "'"+x.typeName(fn)+"' object is not callable")
	return undef, statusRaised
}

// pyMode is how a Python callee's frame hands back to site: CALL runs it
// inline (no check after), CALL_FUNCTION_EX checks after.
func pyMode(site callSite) retMode {
	switch site {
	case siteCallEx:
		return retPushCheck
	case siteNative:
		return retNative
	}
	return retPush
}

// cMode is how a frame pushed by a C callee hands back: CALL checks after
// a C callee.
func cMode(site callSite) retMode {
	switch site {
	case siteCall, siteCallEx:
		return retPushCheck
	case siteNative:
		return retNative
	}
	return retPush
}

// nextMode is how a generator resumed by a C callee (next(), send())
// hands back.
func nextMode(site callSite) retMode {
	switch site {
	case siteCall, siteCallEx:
		return retNextCheck
	case siteNative:
		return retNativeNext
	}
	return retNext
}

// callPython pushes a frame for Python function fv with the arguments
// bound as CPython binds them.
func (x *exec) callPython(fv Value, f *funcObj, args []Value, kw []kwArg, mode retMode) (Value, callStatus) {
	locals, ok := x.bindArgs(f, args, kw)
	if !ok {
		return undef, statusRaised
	}
	x.pushFrame(x.newFrame(f.code, fv, f.globals, locals, mode))
	return undef, statusPushed
}

// newFrame makes a frame of code with its fast slots.
func (x *exec) newFrame(code *Code, fn, globals Value, locals []Value, mode retMode) Value {
	fr := &frameObj{
		code: code, fn: fn, globals: globals, locals: locals, ret: mode,
		stack: make([]Value, 0, code.StackSize+1),
	}
	return x.s.heap.alloc(fr, x.t)
}

// bindArgs lays args and kw out in a new frame's fast slots, or raises
// CPython's TypeError.
func (x *exec) bindArgs(f *funcObj, args []Value, kw []kwArg) ([]Value, bool) {
	c := f.code
	locals := make([]Value, len(c.LocalsPlus))
	name := c.QualName + "()"
	nPos := c.ArgCount
	slot := nPos + c.KwOnlyCount
	n := min(len(args), nPos)
	copy(locals, args[:n])
	if len(args) > nPos {
		if c.Flags&FlagVarArgs == 0 {
			x.raise(bTypeError, name+" takes "+x.positionalCount(f)+" but "+strconv.Itoa(len(args))+plural(len(args), " was", " were")+" given")
			return nil, false
		}
	}
	if c.Flags&FlagVarArgs != 0 {
		var extra []Value
		if len(args) > nPos {
			extra = args[nPos:]
		}
		locals[slot] = x.newTuple(extra)
		slot++
	}
	var kwargs Value
	if c.Flags&FlagVarKeywords != 0 {
		kwargs = x.newDict()
		locals[slot] = kwargs
	}
	for _, k := range kw {
		kname := x.p.String(k.name)
		i := -1
		for j := c.PosOnlyCount; j < nPos+c.KwOnlyCount; j++ {
			if c.LocalsPlus[j].Name == kname {
				i = j
				break
			}
		}
		if i < 0 {
			if kwargs.K == KindRef {
				x.dictSet(kwargs, k.name, k.val)
				continue
			}
			for j := 0; j < c.PosOnlyCount; j++ {
				if c.LocalsPlus[j].Name == kname {
					x.raise(bTypeError, name+" got some positional-only arguments passed as keyword arguments: '"+kname+"'")
					return nil, false
				}
			}
			x.raise(bTypeError, name+" got an unexpected keyword argument '"+kname+"'")
			return nil, false
		}
		if locals[i].K != KindUndef {
			x.raise(bTypeError, name+" got multiple values for argument '"+kname+"'")
			return nil, false
		}
		locals[i] = k.val
	}
	// defaults fill the last positional parameters, kwdefaults the
	// keyword-only ones
	firstDefault := nPos - len(f.defaults)
	var missing []string
	for i := 0; i < nPos; i++ {
		if locals[i].K != KindUndef {
			continue
		}
		if i >= firstDefault {
			locals[i] = f.defaults[i-firstDefault]
			continue
		}
		missing = append(missing, c.LocalsPlus[i].Name)
	}
	if len(missing) > 0 {
		x.raise(bTypeError, name+" missing "+strconv.Itoa(len(missing))+" required positional argument"+plural(len(missing), "", "s")+": "+nameList(missing))
		return nil, false
	}
	for i := nPos; i < nPos+c.KwOnlyCount; i++ {
		if locals[i].K != KindUndef {
			continue
		}
		if f.kwDefaults.K == KindRef {
			if v, found, _ := x.dictGet(f.kwDefaults, x.mustStr(c.LocalsPlus[i].Name)); found {
				locals[i] = v
				continue
			}
		}
		missing = append(missing, c.LocalsPlus[i].Name)
	}
	if len(missing) > 0 {
		x.raise(bTypeError, name+" missing "+strconv.Itoa(len(missing))+" required keyword-only argument"+plural(len(missing), "", "s")+": "+nameList(missing))
		return nil, false
	}
	return locals, true
}

// positionalCount is "2 positional arguments", "from 1 to 2 positional
// arguments" (with defaults), as CPython's too-many message says it.
func (x *exec) positionalCount(f *funcObj) string {
	n := f.code.ArgCount
	if d := len(f.defaults); d > 0 {
		return "from " + strconv.Itoa(n-d) + " to " + strconv.Itoa(n) + " positional arguments"
	}
	return strconv.Itoa(n) + " positional argument" + plural(n, "", "s")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// nameList is 'a', 'a' and 'b', 'a', 'b', and 'c' (CPython's
// format_missing).
func nameList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	switch len(q) {
	case 1:
		return q[0]
	case 2:
		return q[0] + " and " + q[1]
	}
	s := ""
	for i, n := range q[:len(q)-1] {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s + ", and " + q[len(q)-1]
}

// mustStr is the interned Value of s, which Load interned.
func (x *exec) mustStr(s string) Value {
	v, ok := x.p.lookupStr(s)
	if !ok {
		panic("pyvm: string " + strconv.Quote(s) + " was not interned at Load")
	}
	return v
}

// instantiate calls class c: a new instance, then its __init__ (a native
// frame runs it).
func (x *exec) instantiate(cv Value, c *classObj, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if x.classIsSubtype(cv, builtin(bBaseException)) {
		x.unsupported("an exception class defined in Python")
		return undef, statusRaised
	}
	inst := x.s.heap.alloc(&instanceObj{cls: cv, dict: x.newDict()}, x.t)
	init, found := x.classLookup(cv, x.mustStr("__init__"))
	if !found {
		if len(args) > 0 || len(kw) > 0 {
			x.raise(bTypeError, x.p.String(c.name)+"() takes no arguments")
			return undef, statusRaised
		}
		return inst, statusDone
	}
	all := append([]Value{init, inst}, args...)
	x.pushNative(natInit, cMode(site), all, kw)
	return undef, statusPushed
}
