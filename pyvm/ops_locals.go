package pyvm

// The value stack, constants, returns, fast locals, cells and names.

// opResume checks the eval breaker at a function's start and after a
// yield (3.11, 3.12: oparg < 2; 3.13: oparg's location bits < 2, its
// depth bit aside).
func opResume(x *exec) {
	if x.in.Arg&3 < 2 {
		x.check()
	}
}

func opPopTop(x *exec)   { x.f.pop() }
func opPushNull(x *exec) { x.f.push(null) }
func opCopy(x *exec)     { x.f.push(x.f.peek(x.in.Arg)) }

func opSwap(x *exec) {
	f, n := x.f, x.in.Arg
	a, b := f.peek(1), f.peek(n)
	f.setPeek(1, b)
	f.setPeek(n, a)
}

// opEndFor312 is 3.12's END_FOR: POP_TOP twice (3.13's pops once, then a
// POP_TOP follows).
func opEndFor312(x *exec) { x.f.pop(); x.f.pop() }

func opLoadConst(x *exec) { x.f.push(x.f.code.vals[x.in.Arg]) }

func opReturnValue(x *exec) { x.finish(returned, x.f.pop()) }

func opReturnConst(x *exec) { x.finish(returned, x.f.code.vals[x.in.Arg]) }

// loadLocal pushes fast slot i, raising UnboundLocalError when it is
// unbound.
func (x *exec) loadLocal(i int) {
	v := x.f.locals[i]
	if v.K == KindUndef {
		x.raise(bUnboundLocalError, "cannot access local variable '"+x.f.code.LocalsPlus[i].Name+"' where it is not associated with a value")
		return
	}
	x.f.push(v)
}

func opLoadFast(x *exec) { x.loadLocal(x.in.Arg) }

// opLoadFastAndClear (3.12+, inlined comprehensions) saves the outer
// variable the comprehension's own shadows: pushed even when unbound, and
// the slot cleared.
func opLoadFastAndClear(x *exec) {
	x.f.push(x.f.locals[x.in.Arg])
	x.f.locals[x.in.Arg] = undef
}

func opLoadFastLoadFast(x *exec) {
	x.loadLocal(x.in.Arg >> 4)
	if x.exc.K == KindUndef {
		x.loadLocal(x.in.Arg & 15)
	}
}

func opStoreFast(x *exec) { x.f.locals[x.in.Arg] = x.f.pop() }

func opStoreFastLoadFast(x *exec) {
	x.f.locals[x.in.Arg>>4] = x.f.pop()
	x.loadLocal(x.in.Arg & 15)
}

func opStoreFastStoreFast(x *exec) {
	x.f.locals[x.in.Arg>>4] = x.f.pop()
	x.f.locals[x.in.Arg&15] = x.f.pop()
}

func opDeleteFast(x *exec) {
	if x.f.locals[x.in.Arg].K == KindUndef {
		x.raise(bUnboundLocalError, "cannot access local variable '"+x.f.code.LocalsPlus[x.in.Arg].Name+"' where it is not associated with a value")
		return
	}
	x.f.locals[x.in.Arg] = undef
}

// opMakeCell puts fast slot i's value (maybe unbound) in a new cell.
func opMakeCell(x *exec) {
	i := x.in.Arg
	x.f.locals[i] = x.s.heap.alloc(&cellObj{v: x.f.locals[i]}, x.t)
}

func opLoadClosure(x *exec) { x.f.push(x.f.locals[x.in.Arg]) }

// opCopyFreeVars copies the function's closure cells into the last n slots.
func opCopyFreeVars(x *exec) {
	n := x.in.Arg
	fn := x.s.heap.get(x.f.fn).(*funcObj)
	cells := x.s.heap.get(fn.closure).(*seqObj).items
	copy(x.f.locals[len(x.f.locals)-n:], cells[len(cells)-n:])
}

func (x *exec) cellOf(i int) (Value, *cellObj) {
	cv := x.f.locals[i]
	return cv, x.s.heap.get(cv).(*cellObj)
}

// unboundDeref raises what CPython raises for an empty cell: a local
// (cell) variable's UnboundLocalError, a free variable's NameError.
func (x *exec) unboundDeref(i int) {
	lv := x.f.code.LocalsPlus[i]
	if lv.Kind&LocalFree != 0 {
		x.raise(bNameError, "cannot access free variable '"+lv.Name+"' where it is not associated with a value in enclosing scope")
		return
	}
	x.raise(bUnboundLocalError, "cannot access local variable '"+lv.Name+"' where it is not associated with a value")
}

func opLoadDeref(x *exec) {
	cv, c := x.cellOf(x.in.Arg)
	x.read(cv, LocWhole, undef)
	if c.v.K == KindUndef {
		x.unboundDeref(x.in.Arg)
		return
	}
	x.f.push(c.v)
}

func opStoreDeref(x *exec) {
	v := x.f.pop()
	cv := x.f.locals[x.in.Arg]
	x.write(cv, LocWhole, undef)
	x.stored(cv, v)
	x.s.heap.mut(cv).(*cellObj).v = v
}

func opDeleteDeref(x *exec) {
	cv, c := x.cellOf(x.in.Arg)
	x.write(cv, LocWhole, undef)
	if c.v.K == KindUndef {
		x.unboundDeref(x.in.Arg)
		return
	}
	x.s.heap.mut(cv).(*cellObj).v = undef
}

// nameArg is the instruction's name as an interned string.
func (x *exec) nameArg() Value { return x.mustStr(x.in.ArgName) }

// loadGlobal finds a global: the frame's globals, then builtins.
func (x *exec) loadGlobal(name Value) (Value, bool) {
	g := x.f.globals
	v, found, _ := x.dictGetGlobal(g, name)
	if found {
		return v, true
	}
	if b, ok := builtinByName[x.p.String(name)]; ok {
		return builtin(b), true
	}
	x.raise(bNameError, "name '"+x.p.String(name)+"' is not defined")
	return undef, false
}

// dictGetGlobal reads a globals dict, reporting a read of a module global
// no code can store to after the set-up as Const.
func (x *exec) dictGetGlobal(g, name Value) (Value, bool, bool) {
	if g == x.s.module && !x.p.globalWritable(name) {
		d := x.s.heap.get(g).(*dictObj)
		i, _ := x.dictFind(d, name)
		x.readConst(g, LocEntry, name)
		if i < 0 {
			return undef, false, true
		}
		return d.entries[i].val, true, true
	}
	return x.dictGet(g, name)
}

// opLoadGlobal311 is 3.11's and 3.12's LOAD_GLOBAL: with its low bit set,
// a NULL is pushed before the global (the call's NULL slot).
func opLoadGlobal311(x *exec) {
	v, ok := x.loadGlobal(x.nameArg())
	if !ok {
		return
	}
	if x.in.Arg&1 != 0 {
		x.f.push(null)
	}
	x.f.push(v)
}

// opLoadGlobal313 is 3.13's: the NULL goes after the global.
func opLoadGlobal313(x *exec) {
	v, ok := x.loadGlobal(x.nameArg())
	if !ok {
		return
	}
	x.f.push(v)
	if x.in.Arg&1 != 0 {
		x.f.push(null)
	}
}

func opStoreGlobal(x *exec) { x.dictSet(x.f.globals, x.nameArg(), x.f.pop()) }

func opDeleteGlobal(x *exec) {
	name := x.nameArg()
	if _, found, _ := x.dictGet(x.f.globals, name); !found {
		x.raise(bNameError, "name '"+x.p.String(name)+"' is not defined")
		return
	}
	x.dictDel(x.f.globals, name)
}

// opLoadName looks in the frame's names (a class body's namespace, a
// module's globals), then its globals, then builtins.
func opLoadName(x *exec) {
	name := x.nameArg()
	if x.f.names != x.f.globals {
		if v, found, ok := x.dictGet(x.f.names, name); !ok {
			return
		} else if found {
			x.f.push(v)
			return
		}
	}
	if v, ok := x.loadGlobal(name); ok {
		x.f.push(v)
	}
}

func opStoreName(x *exec) { x.dictSet(x.f.names, x.nameArg(), x.f.pop()) }

func opDeleteName(x *exec) {
	name := x.nameArg()
	if _, found, _ := x.dictGet(x.f.names, name); !found {
		x.raise(bNameError, "name '"+x.p.String(name)+"' is not defined")
		return
	}
	x.dictDel(x.f.names, name)
}

func opLoadBuildClass(x *exec) { x.f.push(builtin(bBuildClass)) }

func opLoadAssertionError(x *exec) { x.f.push(builtin(bAssertionError)) }
