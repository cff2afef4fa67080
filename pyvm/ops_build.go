package pyvm

// Building tuples, lists and dicts, and the comprehension's appends.

func opBuildTuple(x *exec) { x.f.push(x.newTuple(x.f.popN(x.in.Arg))) }

func opBuildList(x *exec) { x.f.push(x.newList(x.f.popN(x.in.Arg))) }

// opBuildMap is BUILD_MAP n: n key, value pairs, the first deepest.
func opBuildMap(x *exec) {
	kv := append([]Value(nil), x.f.popN(2*x.in.Arg)...)
	d := x.newDict()
	for i := 0; i < len(kv); i += 2 {
		if !x.dictSet(d, kv[i], kv[i+1]) {
			return
		}
	}
	x.f.push(d)
}

// opBuildConstKeyMap is BUILD_CONST_KEY_MAP n: a tuple of n keys on top of
// n values.
func opBuildConstKeyMap(x *exec) {
	keys, _ := x.tupleItems(x.f.pop())
	vals := append([]Value(nil), x.f.popN(x.in.Arg)...)
	d := x.newDict()
	for i, k := range keys {
		if !x.dictSet(d, k, vals[i]) {
			return
		}
	}
	x.f.push(d)
}

// opListAppend is LIST_APPEND i: the list is i entries down once the value
// is popped.
func opListAppend(x *exec) {
	v := x.f.pop()
	l := x.f.peek(x.in.Arg)
	x.write(l, LocWhole, undef)
	x.stored(l, v)
	s := x.s.heap.mut(l).(*seqObj)
	s.items = append(s.items, v)
}

// opMapAdd is MAP_ADD i: value on top, key under it, the dict i entries
// down once both are popped.
func opMapAdd(x *exec) {
	v := x.f.pop()
	k := x.f.pop()
	x.dictSet(x.f.peek(x.in.Arg), k, v)
}

// opListExtend is LIST_EXTEND i ([*a, ...], list displays of constants).
func opListExtend(x *exec) {
	it := x.f.pop()
	l := x.f.peek(x.in.Arg)
	items, ok := x.iterateNow(it)
	if !ok {
		if x.exc.K == KindUndef {
			x.raise(bTypeError, "Value after * must be an iterable, not "+x.typeName(it))
		}
		return
	}
	x.write(l, LocWhole, undef)
	for _, v := range items {
		x.stored(l, v)
	}
	s := x.s.heap.mut(l).(*seqObj)
	s.items = append(s.items, items...)
}

func opListToTuple(x *exec) {
	l := x.f.pop()
	x.f.push(x.newTuple(x.s.heap.get(l).(*seqObj).items))
}

// opDictUpdate is DICT_UPDATE i ({**a}).
func opDictUpdate(x *exec) {
	m := x.f.pop()
	d := x.f.peek(x.in.Arg)
	if _, ok := x.asDict(m); !ok {
		x.raise(bTypeError, "'"+x.typeName(m)+"' object is not a mapping")
		return
	}
	x.updateFrom(d, m)
}

// opDictMerge is DICT_MERGE i (f(**a, **b)): as DICT_UPDATE, but a key
// already there is an error.
func opDictMerge(x *exec) {
	m := x.f.pop()
	d := x.f.peek(x.in.Arg)
	src, ok := x.asDict(m)
	if !ok {
		x.unsupported("** of a " + x.typeName(m))
		return
	}
	for _, e := range src.entries {
		if e.dead {
			continue
		}
		if _, found, _ := x.dictGet(d, e.key); found {
			fn := x.f.peek(x.in.Arg + 2)
			x.raise(bTypeError, x.funcName(fn)+" got multiple values for keyword argument '"+x.str(e.key)+"'")
			return
		}
	}
	x.updateFrom(d, m)
}

// funcName is a callable's name as CPython's argument errors give it
// ("f()", "C.m()").
func (x *exec) funcName(fn Value) string {
	if fn.K == KindRef {
		switch o := x.s.heap.get(fn).(type) {
		case *funcObj:
			return o.code.QualName + "()"
		case *methodObj:
			return x.funcName(o.fn)
		}
	}
	return x.repr(fn)
}

// updateFrom stores every entry of dict m into dict d (dict.update(m), one
// C call: one step).
func (x *exec) updateFrom(d, m Value) bool {
	src := x.s.heap.get(m).(*dictObj)
	x.read(m, LocWhole, undef)
	entries := append([]dictEntry(nil), src.entries...)
	for _, e := range entries {
		if !e.dead && !x.dictSet(d, e.key, e.val) {
			return false
		}
	}
	return true
}

// opCallIntrinsic1 is 3.12+'s CALL_INTRINSIC_1 for the intrinsics this
// code uses (dis names them in argrepr).
func opCallIntrinsic1(x *exec) {
	v := x.f.pop()
	switch x.in.ArgRepr {
	case "INTRINSIC_STOPITERATION_ERROR":
		// a generator's StopIteration becomes RuntimeError (PEP 479)
		if x.isInstance(v, bStopIteration) {
			e := x.newExc(bRuntimeError, "generator raised StopIteration")
			x.s.heap.mut(e).(*excObj).cause = v
			v = e
		}
		x.f.push(v)
	case "INTRINSIC_LIST_TO_TUPLE":
		x.f.push(x.newTuple(x.s.heap.get(v).(*seqObj).items))
	case "INTRINSIC_UNARY_POSITIVE":
		if !num(v) {
			x.raise(bTypeError, "bad operand type for unary +: '"+x.typeName(v)+"'")
			return
		}
		x.f.push(Int(v.X))
	default:
		x.unsupported("CALL_INTRINSIC_1 " + x.in.ArgRepr)
	}
}
