package pyvm

import "strconv"

// The methods of the built-in types. args[0] is self (invoke checked its
// type).

func callDictGet(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("get", kw) || !x.nargs("get", len(args)-1, 1, 2) {
		return fail()
	}
	v, found, ok := x.dictGet(args[0], args[1])
	if !ok {
		return fail()
	}
	if !found {
		if len(args) == 3 {
			return done(args[2])
		}
		return done(None)
	}
	return done(v)
}

func callDictView(kind iterKind) builtinFunc {
	return func(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
		name := [...]string{iterDictKeys: "keys", iterDictValues: "values", iterDictItems: "items"}[kind]
		if !x.noKw(name, kw) || !x.nargs(name, len(args)-1, 0, 0) {
			return fail()
		}
		return done(x.s.heap.alloc(&viewObj{dict: args[0], kind: kind}, x.t))
	}
}

// callDictUpdate is d.update(other, **kw): a dict, or an iterable of
// pairs (a generator's run by a natCollect frame), then the keywords; one
// C call.
func callDictUpdate(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.nargs("update", len(args)-1, 0, 1) {
		return fail()
	}
	d := args[0]
	if len(args) == 2 {
		if st := x.fillDict(d, args[1], collectUpdate, site); st != statusDone {
			if st == statusPushed && len(kw) > 0 {
				x.unsupported("d.update(generator, **kwargs)")
				return fail()
			}
			return undef, st
		}
	}
	for _, k := range kw {
		x.dictSet(d, k.name, k.val)
	}
	return done(None)
}

func callDictPop(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("pop", kw) || !x.nargs("pop", len(args)-1, 1, 2) {
		return fail()
	}
	d, key := args[0], args[1]
	v, found, ok := x.dictGet(d, key)
	if !ok {
		return fail()
	}
	if !found {
		if len(args) == 3 {
			return done(args[2])
		}
		x.raiseKeyError(key)
		return fail()
	}
	x.dictDel(d, key)
	return done(v)
}

func callDictSetdefault(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("setdefault", kw) || !x.nargs("setdefault", len(args)-1, 1, 2) {
		return fail()
	}
	d, key := args[0], args[1]
	v, found, ok := x.dictGet(d, key)
	if !ok {
		return fail()
	}
	if found {
		return done(v)
	}
	def := None
	if len(args) == 3 {
		def = args[2]
	}
	x.dictSet(d, key, def)
	return done(def)
}

func callDictCopy(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("copy", kw) || !x.nargs("copy", len(args)-1, 0, 0) {
		return fail()
	}
	src := x.s.heap.get(args[0]).(*dictObj)
	d := x.s.heap.alloc(&dictObj{isDefault: src.isDefault, factory: src.factory}, x.t)
	x.updateFrom(d, args[0])
	return done(d)
}

func callDictClear(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("clear", kw) || !x.nargs("clear", len(args)-1, 0, 0) {
		return fail()
	}
	x.write(args[0], LocWhole, undef)
	d := x.s.heap.mut(args[0]).(*dictObj)
	d.entries, d.used = nil, 0
	return done(None)
}

func callListAppend(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("append", kw) {
		return fail()
	}
	if len(args) != 2 {
		x.raise(bTypeError, "list.append() takes exactly one argument ("+strconv.Itoa(len(args)-1)+" given)")
		return fail()
	}
	x.write(args[0], LocWhole, undef)
	x.stored(args[0], args[1])
	l := x.s.heap.mut(args[0]).(*seqObj)
	l.items = append(l.items, args[1])
	return done(None)
}

func callListPop(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("pop", kw) || !x.nargs("pop", len(args)-1, 0, 1) {
		return fail()
	}
	l := x.s.heap.get(args[0]).(*seqObj)
	x.write(args[0], LocWhole, undef)
	if len(l.items) == 0 {
		x.raise(bIndexError, "pop from empty list")
		return fail()
	}
	i := len(l.items) - 1
	if len(args) == 2 {
		if !num(args[1]) {
			x.raise(bTypeError, "'"+x.typeName(args[1])+"' object cannot be interpreted as an integer")
			return fail()
		}
		i = int(args[1].X)
		if i < 0 {
			i += len(l.items)
		}
		if i < 0 || i >= len(l.items) {
			x.raise(bIndexError, "pop index out of range")
			return fail()
		}
	}
	m := x.s.heap.mut(args[0]).(*seqObj)
	v := m.items[i]
	m.items = append(m.items[:i], m.items[i+1:]...)
	return done(v)
}

func callListExtend(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("extend", kw) {
		return fail()
	}
	if len(args) != 2 {
		x.raise(bTypeError, "list.extend() takes exactly one argument ("+strconv.Itoa(len(args)-1)+" given)")
		return fail()
	}
	items, st := x.collectOrNow(args[1], args[0], collectExtend, site)
	if st != statusDone {
		return undef, st
	}
	x.write(args[0], LocWhole, undef)
	for _, v := range items {
		x.stored(args[0], v)
	}
	l := x.s.heap.mut(args[0]).(*seqObj)
	l.items = append(l.items, items...)
	return done(None)
}

// callLockAcquire is lock.acquire(blocking=True, timeout=-1) and
// lock.__enter__(): a held Lock (or an RLock another thread holds) blocks
// a blocking acquire: the step does not run.
func callLockAcquire(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	lv := args[0]
	blocking := true
	if len(kw) > 0 || len(args) > 2 {
		x.unsupported("acquire() with a timeout")
		return fail()
	}
	if len(args) == 2 {
		b, ok := x.truth(args[1])
		if !ok {
			return fail()
		}
		blocking = b
	}
	l := x.s.heap.get(lv).(*lockObj)
	me := int16(x.t + 1)
	if l.locked && !(l.reentrant && l.owner == me) {
		x.read(lv, LocWhole, undef)
		if blocking {
			return undef, statusBlocked
		}
		return done(False)
	}
	x.write(lv, LocWhole, undef)
	m := x.s.heap.mut(lv).(*lockObj)
	m.locked = true
	if m.reentrant {
		m.owner = me
		m.count++
	}
	if !m.reentrant || m.count == 1 {
		x.s.held++
	}
	x.info.Locks = append(x.info.Locks, LockOp{Lock: lv, Acquire: true})
	return done(True)
}

// callLockRelease is lock.release().
func callLockRelease(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("release", kw) || !x.nargs("release", len(args)-1, 0, 0) {
		return fail()
	}
	return x.release(args[0])
}

func (x *exec) release(lv Value) (Value, callStatus) {
	l := x.s.heap.get(lv).(*lockObj)
	x.write(lv, LocWhole, undef)
	if l.reentrant {
		if !l.locked || l.owner != int16(x.t+1) {
			x.raise(bRuntimeError, "cannot release un-acquired lock")
			return fail()
		}
		m := x.s.heap.mut(lv).(*lockObj)
		m.count--
		if m.count == 0 {
			m.locked, m.owner = false, 0
			x.s.held--
		}
		x.info.Locks = append(x.info.Locks, LockOp{Lock: lv, Free: m.count == 0})
		return done(None)
	}
	if !l.locked {
		x.raise(bRuntimeError, "release unlocked lock")
		return fail()
	}
	x.s.heap.mut(lv).(*lockObj).locked = false
	x.s.held--
	x.info.Locks = append(x.info.Locks, LockOp{Lock: lv, Free: true})
	return done(None)
}

// callLockExit is lock.__exit__(*exc_info): a release.
func callLockExit(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if _, st := x.release(args[0]); st != statusDone {
		return fail()
	}
	return done(None)
}

func callLockLocked(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	x.read(args[0], LocWhole, undef)
	return done(Bool(x.s.heap.get(args[0]).(*lockObj).locked))
}

func callGenSend(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("send", kw) || !x.nargs("send", len(args)-1, 1, 1) {
		return fail()
	}
	return x.resumeFrom(args[0], args[1], undef, site)
}

// callGenThrow is gen.throw(exc) (and 3.11's throw(type, value, tb)).
func callGenThrow(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("throw", kw) || !x.nargs("throw", len(args)-1, 1, 3) {
		return fail()
	}
	e := args[1]
	if len(args) >= 3 && args[2].K != KindNone {
		e = args[2]
	}
	exc, ok := x.makeExc(e)
	if !ok {
		return fail()
	}
	return x.resumeFrom(args[0], None, exc, site)
}

// callGenClose is gen.close() on a generator that has not started or has
// finished (closing a suspended one runs its code with GeneratorExit:
// not modelled).
func callGenClose(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	g := x.s.heap.get(args[0]).(*genObj)
	switch g.state {
	case genDone:
		return done(None)
	case genCreated:
		x.write(args[0], LocWhole, undef)
		m := x.s.heap.mut(args[0]).(*genObj)
		m.state, m.frame = genDone, undef
		return done(None)
	}
	x.unsupported("closing a suspended generator")
	return fail()
}

// callCMEnter is _GeneratorContextManager.__enter__ (a Python method in
// contextlib: a natEnter frame runs it).
func callCMEnter(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(args) != 1 || len(kw) > 0 {
		x.raise(bTypeError, "_GeneratorContextManager.__enter__() takes 1 positional argument but "+strconv.Itoa(len(args))+" were given")
		return fail()
	}
	x.pushNative(natEnter, pyMode(site), args, nil)
	return undef, statusPushed
}

// callCMExit is _GeneratorContextManager.__exit__(typ, value, traceback).
func callCMExit(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(args) != 4 || len(kw) > 0 {
		x.raise(bTypeError, "_GeneratorContextManager.__exit__() takes 4 positional arguments but "+strconv.Itoa(len(args))+" were given")
		return fail()
	}
	x.pushNative(natExit, pyMode(site), args, nil)
	return undef, statusPushed
}
