package pyvm

import "strconv"

// Subscripts: BINARY_SUBSCR, STORE_SUBSCR, DELETE_SUBSCR on dicts,
// defaultdicts, lists and tuples.

// opBinarySubscr is container[key]. A defaultdict miss calls the factory
// and stores its value (defaultdict.__missing__): one step under the GIL
// when the factory is a C callable; in the free-threaded modes
// (Options.Miss) the lookup and the factory's call are one step and the
// store a second, the instruction running twice (the value waits in the
// frame's tmp).
func opBinarySubscr(x *exec) {
	f := x.f
	key, cont := f.peek(1), f.peek(2)
	if len(f.tmp) > 0 { // the second step of a split miss
		x.missStore(cont, key)
		return
	}
	if d, ok := x.asDict(cont); ok {
		v, found, ok := x.dictGet(cont, key)
		if !ok {
			return
		}
		if found {
			f.popN(2)
			f.push(v)
			return
		}
		if !d.isDefault || d.factory.K == KindNone {
			x.raiseKeyError(key)
			return
		}
		fv, st := x.invoke(d.factory, nil, nil, siteNative)
		switch st {
		case statusRaised:
			return
		case statusPushed, statusBlocked:
			x.unsupported("a defaultdict factory written in Python")
			return
		}
		if x.p.Options.Miss != MissAtomic {
			f.tmp = append(f.tmp[:0], fv)
			f.pc = f.lasti
			return
		}
		x.dictSet(cont, key, fv)
		f.popN(2)
		f.push(fv)
		return
	}
	if items, ok := x.seqItems(cont); ok && !x.isFrozenset(cont) {
		i, ok := x.index(key, len(items), x.typeName(cont))
		if !ok {
			return
		}
		if !x.isTuple(cont) {
			x.read(cont, LocWhole, undef)
		}
		f.popN(2)
		f.push(items[i])
		return
	}
	if o, ok := x.opaque(cont); ok {
		x.standInUsed(o.name, "subscript")
		return
	}
	x.raise(bTypeError, "'"+x.typeName(cont)+"' object is not subscriptable")
}

// missStore is the second step of a split defaultdict miss: __missing__'s
// store. With gh-142495's fix it is a setdefault (a value another thread
// stored meanwhile wins, and is what the subscript gives); before it, a
// plain store that overwrites.
func (x *exec) missStore(cont, key Value) {
	f := x.f
	fv := f.tmp[0]
	f.tmp = f.tmp[:0]
	if x.p.Options.Miss == MissSplitSetdefault {
		if v, found, _ := x.dictGet(cont, key); found {
			fv = v
		} else {
			x.dictSet(cont, key, fv)
		}
	} else {
		x.dictSet(cont, key, fv)
	}
	f.popN(2)
	f.push(fv)
}

// index checks key as an index of a sequence of n items.
func (x *exec) index(key Value, n int, typ string) (int, bool) {
	if !num(key) {
		x.raise(bTypeError, typ+" indices must be integers or slices, not "+x.typeName(key))
		return 0, false
	}
	i := int(key.X)
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		x.raise(bIndexError, typ+" index out of range")
		return 0, false
	}
	return i, true
}

func (x *exec) isFrozenset(v Value) bool { return v.K == KindConst && x.p.consts[v.X].frozen }

func (x *exec) isTuple(v Value) bool {
	_, ok := x.tupleItems(v)
	return ok
}

// seqItems returns a list's or tuple's items (or a frozenset constant's).
func (x *exec) seqItems(v Value) ([]Value, bool) {
	switch v.K {
	case KindConst:
		return x.p.consts[v.X].items, true
	case KindRef:
		if s, ok := x.s.heap.get(v).(*seqObj); ok {
			return s.items, true
		}
	}
	return nil, false
}

func (x *exec) opaque(v Value) (*opaqueObj, bool) {
	if v.K != KindRef {
		return nil, false
	}
	switch o := x.s.heap.get(v).(type) {
	case *opaqueObj:
		return o, true
	case *moduleObj:
		if !o.host {
			return &opaqueObj{name: x.p.String(o.name)}, true
		}
	}
	return nil, false
}

// opStoreSubscr is container[key] = value (3.11+: value, container, key
// on the stack, key on top).
func opStoreSubscr(x *exec) {
	f := x.f
	key := f.pop()
	cont := f.pop()
	v := f.pop()
	if _, ok := x.asDict(cont); ok {
		x.dictSet(cont, key, v)
		return
	}
	if cont.K == KindRef {
		if s, ok := x.s.heap.get(cont).(*seqObj); ok && !s.tuple {
			i, ok := x.index(key, len(s.items), "list assignment")
			if !ok {
				return
			}
			x.write(cont, LocWhole, undef)
			x.stored(cont, v)
			x.s.heap.mut(cont).(*seqObj).items[i] = v
			return
		}
	}
	if o, ok := x.opaque(cont); ok {
		x.standInUsed(o.name, "item assignment")
		return
	}
	x.raise(bTypeError, "'"+x.typeName(cont)+"' object does not support item assignment")
}

// opDeleteSubscr is del container[key].
func opDeleteSubscr(x *exec) {
	f := x.f
	key := f.pop()
	cont := f.pop()
	if _, ok := x.asDict(cont); ok {
		x.dictDel(cont, key)
		return
	}
	if cont.K == KindRef {
		if s, ok := x.s.heap.get(cont).(*seqObj); ok && !s.tuple {
			i, ok := x.index(key, len(s.items), "list assignment")
			if !ok {
				return
			}
			x.write(cont, LocWhole, undef)
			l := x.s.heap.mut(cont).(*seqObj)
			l.items = append(l.items[:i], l.items[i+1:]...)
			return
		}
	}
	x.raise(bTypeError, "'"+x.typeName(cont)+"' object doesn't support item deletion")
}

// opUnpackSequence is UNPACK_SEQUENCE n: the items pushed last first.
func opUnpackSequence(x *exec) {
	f := x.f
	v := f.pop()
	n := x.in.Arg
	items, ok := x.seqItems(v)
	if !ok || x.isFrozenset(v) {
		if !x.iterable(v) {
			x.raise(bTypeError, "cannot unpack non-iterable "+x.typeName(v)+" object")
			return
		}
		items, ok = x.iterateNow(v)
		if !ok {
			return
		}
	} else if v.K == KindRef && !x.isTuple(v) {
		x.read(v, LocWhole, undef)
	}
	if len(items) < n {
		x.raise(bValueError, "not enough values to unpack (expected "+strconv.Itoa(n)+", got "+strconv.Itoa(len(items))+")")
		return
	}
	if len(items) > n {
		x.raise(bValueError, "too many values to unpack (expected "+strconv.Itoa(n)+")")
		return
	}
	for i := n - 1; i >= 0; i-- {
		f.push(items[i])
	}
}
