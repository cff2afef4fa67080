package pyvm

import "strconv"

// Native frames: library code the interpreter runs itself, as a small
// state machine whose states are steps (the frame's pc is the state).
// Each state names the Python line it stands for; the states that end at
// an eval-breaker check are the places CPython checks in that code
// (contextlib.py's _GeneratorContextManager: its methods' RESUME, and the
// CALL after next() and other C calls returned), so that the embedder's
// interrupts and switches land where CPython's can.

// nativeKind names a native frame's code.
type nativeKind uint8

const (
	natCall       nativeKind = 1 + iota // the embedder's call (Begin)
	natHelper                           // contextmanager's helper(*args): _GeneratorContextManager(func, args, kwds)
	natEnter                            // _GeneratorContextManager.__enter__
	natExit                             // _GeneratorContextManager.__exit__
	natCollect                          // dict(it), list(it), tuple(it), d.update(it), l.extend(it) over a generator
	natBuildClass                       // __build_class__: the class body
	natInit                             // calling a class: __init__
	natWait                             // threading.Condition.wait (threads.go)
	natAny                              // any(it), all(it) over a generator
)

// pushNative pushes a native frame with registers tmp.
func (x *exec) pushNative(kind nativeKind, mode retMode, tmp []Value, kw []kwArg) {
	if len(kw) > 0 {
		x.unsupported("keyword arguments to " + nativeNames[kind])
		return
	}
	fr := &frameObj{native: kind, ret: mode, tmp: append([]Value(nil), tmp...)}
	x.pushFrame(x.s.heap.alloc(fr, x.t))
}

var nativeNames = [...]string{
	natCall:       "the embedder's call",
	natHelper:     "contextlib.contextmanager's helper",
	natEnter:      "contextlib._GeneratorContextManager.__enter__",
	natExit:       "contextlib._GeneratorContextManager.__exit__",
	natCollect:    "a builtin consuming a generator",
	natBuildClass: "__build_class__",
	natInit:       "a class's __init__",
	natWait:       "threading.Condition.wait",
	natAny:        "any() or all() over a generator",
}

// The collect kinds (natCollect's tmp[2]).
const (
	collectDict int32 = 1 + iota
	collectList
	collectTuple
	collectUpdate // into an existing dict: the result is None
	collectExtend // into an existing list: the result is None
)

// nativeStep runs the top native frame's current state.
func (x *exec) nativeStep() {
	f := x.f
	label := func(s string) { x.info.Native = nativeNames[f.native] + ": " + s }
	switch f.native {
	case natCall:
		label("call")
		v, st := x.invoke(f.tmp[0], f.tmp[1:], nil, siteNative)
		x.afterNativeCall(v, st, 1)
	case natHelper:
		switch f.pc {
		case 0:
			label("RESUME (helper, then _GeneratorContextManager.__init__)")
			f.pc = 1
			x.check()
		case 1:
			label("self.gen = func(*args, **kwds)")
			v, st := x.invoke(f.tmp[0], f.tmp[1:], nil, siteNative)
			x.afterNativeCall(v, st, 2)
		case 3:
			label("return _GeneratorContextManager(func, args, kwds)")
			x.finish(returned, f.tmp[0])
		}
	case natEnter:
		switch f.pc {
		case 0:
			label("RESUME")
			f.pc = 1
			x.check()
		case 1:
			label("del self.args, self.kwds, self.func; next(self.gen)")
			cmv := f.tmp[0]
			cm := x.s.heap.get(cmv).(*cmObj)
			if cm.entered {
				x.raise(bAttributeError, "args")
				return
			}
			cm = x.s.heap.mut(cmv).(*cmObj)
			x.write(cmv, LocWhole, undef)
			cm.entered, cm.fn, cm.args = true, undef, undef
			f.pc = 2
			x.resumeForNative(cm.gen, None, undef)
		case 3:
			label("return next(self.gen)")
			x.finish(returned, f.tmp[1])
		}
	case natExit:
		switch f.pc {
		case 0:
			label("RESUME")
			f.pc = 1
			x.check()
		case 1:
			cm := x.s.heap.get(f.tmp[0]).(*cmObj)
			x.read(f.tmp[0], LocWhole, undef)
			typ, val := f.tmp[1], f.tmp[2]
			switch {
			case typ.K == KindNone:
				label("if typ is None: next(self.gen)")
				f.pc = 2
				x.resumeForNative(cm.gen, None, undef)
			case val.K == KindNone:
				label("value = typ()")
				v, st := x.invoke(typ, nil, nil, siteNative)
				if st != statusDone {
					if st == statusPushed {
						x.unsupported("an exception type whose instantiation runs Python code")
					}
					return
				}
				f.tmp[2] = v
				f.pc = 4
				x.check()
			default:
				label("self.gen.throw(value)")
				f.pc = 3
				x.resumeForNative(cm.gen, None, val)
			}
		case 4:
			label("self.gen.throw(value)")
			cm := x.s.heap.get(f.tmp[0]).(*cmObj)
			x.read(f.tmp[0], LocWhole, undef)
			f.pc = 3
			x.resumeForNative(cm.gen, None, f.tmp[2])
		}
	case natCollect:
		label("next item")
		f.pc = 1
		x.resumeForNative(f.tmp[0], None, undef)
	case natBuildClass:
		label("class body")
		fn := x.s.heap.get(f.tmp[0]).(*funcObj)
		ns := x.newDict()
		f.tmp = append(f.tmp, ns)
		f.pc = 1
		fr := x.newFrame(fn.code, f.tmp[0], fn.globals, make([]Value, len(fn.code.LocalsPlus)), retNative)
		x.s.heap.mut(fr).(*frameObj).names = ns
		x.pushFrame(fr)
	case natInit:
		label("__init__(self, *args)")
		v, st := x.invoke(f.tmp[0], f.tmp[1:], nil, siteNative)
		x.afterNativeCall(v, st, 1)
	case natWait:
		x.waitStep()
	case natAny:
		label("next item")
		f.pc = 1
		x.resumeForNative(f.tmp[0], None, undef)
	default:
		panic("pyvm: unknown native frame")
	}
}

// afterNativeCall takes the immediate outcome of a call a native state
// made: a value or exception goes to the native's resume now, a pushed
// frame's comes later; wait is the state that takes it.
func (x *exec) afterNativeCall(v Value, st callStatus, wait int32) {
	switch st {
	case statusBlocked:
		x.blocked = true
		return
	case statusPushed:
		// the native frame is no longer on top: mark it through the thread
		fr := x.s.threads[x.t].frames
		x.s.heap.mut(ref(fr[len(fr)-2])).(*frameObj).pc = wait
		return
	}
	x.f.pc = wait
	if st == statusRaised {
		exc := x.exc
		x.exc = undef
		x.nativeResume(raised, exc)
		return
	}
	x.nativeResume(returned, v)
}

// nativeResume gives the top native frame the outcome of what it called
// (a generator resumed as next() would: a yield comes as returned, the
// generator's end as StopIteration).
func (x *exec) nativeResume(how outcome, v Value) {
	f := x.f
	switch f.native {
	case natCall, natInit:
		if how == returned && f.native == natInit {
			if v.K != KindNone {
				x.raise(bTypeError, "__init__() should return None, not '"+x.typeName(v)+"'")
				return
			}
			v = f.tmp[1]
		}
		x.finish(how, v)
	case natHelper:
		if how == raised {
			x.exc = v
			return
		}
		args := x.newTuple(f.tmp[1:])
		cm := x.s.heap.alloc(&cmObj{gen: v, fn: f.tmp[0], args: args}, x.t)
		f.tmp = append(f.tmp[:0], cm)
		f.pc = 3
		x.check()
	case natEnter:
		if how == raised {
			if x.isInstance(v, bStopIteration) {
				x.raise(bRuntimeError, "generator didn't yield")
				return
			}
			x.exc = v
			return
		}
		f.tmp = append(f.tmp[:1], v)
		f.pc = 3
		x.check()
	case natExit:
		x.exitResume(how, v)
	case natCollect:
		x.collectResume(how, v)
	case natAny:
		x.anyResume(how, v)
	case natBuildClass:
		if how == raised {
			x.exc = v
			return
		}
		ns := f.tmp[len(f.tmp)-1]
		bases := append([]Value(nil), f.tmp[2:len(f.tmp)-1]...)
		cls := x.s.heap.alloc(&classObj{name: f.tmp[1], bases: bases, ns: ns}, x.t)
		x.finish(returned, cls)
	default:
		panic("pyvm: unknown native frame")
	}
}

// exitResume is __exit__ after next(self.gen) (state 2) or
// self.gen.throw(value) (state 3).
func (x *exec) exitResume(how outcome, v Value) {
	f := x.f
	if f.pc == 2 {
		switch {
		case how == returned:
			x.unsupported("a @contextmanager generator that yields twice (generator didn't stop)")
		case x.isInstance(v, bStopIteration):
			x.finish(returned, False)
		default:
			x.exc = v
		}
		return
	}
	value := f.tmp[2]
	switch {
	case how == returned:
		x.unsupported("a @contextmanager generator that yields after throw() (generator didn't stop after throw())")
	case x.isInstance(v, bStopIteration):
		x.finish(returned, Bool(v != value))
	case x.isInstance(v, bRuntimeError):
		if v == value {
			x.finish(returned, False)
			return
		}
		if x.isInstance(value, bStopIteration) && x.s.heap.get(v).(*excObj).cause == value {
			x.finish(returned, False)
			return
		}
		x.exc = v
	default:
		if v != value {
			x.exc = v
			return
		}
		x.finish(returned, False)
	}
}

// collectResume adds the next item of the generator to the collection,
// or ends it.
func (x *exec) collectResume(how outcome, v Value) {
	f := x.f
	if how == raised {
		if !x.isInstance(v, bStopIteration) {
			x.exc = v
			return
		}
		res := f.tmp[1]
		switch f.tmp[2].X {
		case collectTuple:
			res = x.newTuple(x.s.heap.get(res).(*seqObj).items)
		case collectUpdate, collectExtend:
			res = None
		}
		x.finish(returned, res)
		return
	}
	n := f.tmp[3].X
	f.tmp[3].X++
	f.pc = 0
	switch f.tmp[2].X {
	case collectDict, collectUpdate:
		x.addPair(f.tmp[1], v, int(n))
	default:
		l := x.s.heap.mut(f.tmp[1]).(*seqObj)
		x.write(f.tmp[1], LocWhole, undef)
		x.stored(f.tmp[1], v)
		l.items = append(l.items, v)
	}
}

// addPair stores the (key, value) pair item n of dict(iterable) or
// d.update(iterable).
func (x *exec) addPair(d, item Value, n int) {
	items, ok := x.seqItems(item)
	if !ok {
		x.raise(bTypeError, "cannot convert dictionary update sequence element #"+strconv.Itoa(n)+" to a sequence")
		return
	}
	if len(items) != 2 {
		x.raise(bValueError, "dictionary update sequence element #"+strconv.Itoa(n)+" has length "+strconv.Itoa(len(items))+"; 2 is required")
		return
	}
	k, val := items[0], items[1]
	x.dictSet(d, k, val)
}
