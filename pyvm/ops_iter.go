package pyvm

// Iteration: GET_ITER, FOR_ITER, and the iterators of dicts, sequences
// and ranges. A generator is its own iterator; FOR_ITER resumes it.

// iter is iter(v).
func (x *exec) iter(v Value) (Value, bool) {
	switch v.K {
	case KindConst:
		return x.s.heap.alloc(&iterObj{kind: iterConst, seq: v}, x.t), true
	case KindRef:
		switch o := x.s.heap.get(v).(type) {
		case *dictObj:
			return x.dictIter(v, o, iterDictKeys), true
		case *viewObj:
			return x.dictIter(o.dict, x.s.heap.get(o.dict).(*dictObj), o.kind), true
		case *seqObj:
			return x.s.heap.alloc(&iterObj{kind: iterSeq, seq: v}, x.t), true
		case *rangeObj:
			return x.s.heap.alloc(&iterObj{kind: iterRange, seq: v, pos: o.start, stop: o.stop, step: o.step}, x.t), true
		case *iterObj, *genObj:
			return v, true
		case *opaqueObj:
			x.standInUsed(o.name, "iteration")
			return undef, false
		}
	}
	if x.isStr(v) {
		x.unsupported("iterating a str")
		return undef, false
	}
	x.raise(bTypeError, "'"+x.typeName(v)+"' object is not iterable")
	return undef, false
}

// dictIter starts a dictiter: it remembers the size (di_used) and how
// many entries are to come (len).
func (x *exec) dictIter(dv Value, d *dictObj, kind iterKind) Value {
	x.read(dv, LocShape, undef)
	return x.s.heap.alloc(&iterObj{kind: kind, seq: dv, used: d.used, left: d.used}, x.t)
}

func opGetIter(x *exec) {
	it, ok := x.iter(x.f.pop())
	if ok {
		x.f.push(it)
	}
}

// next advances iterator it (not a generator): the item, or done.
func (x *exec) next(itv Value) (v Value, done bool, ok bool) {
	it := x.s.heap.get(itv).(*iterObj)
	if it.seq.K == KindUndef {
		return undef, true, true
	}
	x.write(itv, LocWhole, undef)
	switch it.kind {
	case iterDictKeys, iterDictValues, iterDictItems:
		return x.dictNext(itv)
	case iterSeq, iterConst:
		items, _ := x.seqItems(it.seq)
		if it.kind == iterSeq && !x.isTuple(it.seq) {
			x.read(it.seq, LocWhole, undef)
		}
		w := x.s.heap.mut(itv).(*iterObj)
		if int(w.pos) >= len(items) {
			w.seq = undef
			return undef, true, true
		}
		w.pos++
		return items[w.pos-1], false, true
	case iterRange:
		w := x.s.heap.mut(itv).(*iterObj)
		if (w.step > 0 && w.pos >= w.stop) || (w.step < 0 && w.pos <= w.stop) {
			w.seq = undef
			return undef, true, true
		}
		w.pos += w.step
		return Int(w.pos - w.step), false, true
	}
	panic("pyvm: an iterator of an unknown kind")
}

// dictNext is CPython's dictiter_iternextkey/value/item: a size change
// since the start raises (and keeps raising), an exhausted iterator drops
// the dict.
func (x *exec) dictNext(itv Value) (Value, bool, bool) {
	w := x.s.heap.mut(itv).(*iterObj)
	dv := w.seq
	d := x.s.heap.get(dv).(*dictObj)
	x.read(dv, LocShape, undef)
	if w.used != d.used {
		w.used = -1
		x.raise(bRuntimeError, "dictionary changed size during iteration")
		return undef, false, false
	}
	i := int(w.pos)
	for i < len(d.entries) && d.entries[i].dead {
		i++
	}
	w.pos = int32(i + 1)
	if i >= len(d.entries) {
		w.seq = undef
		return undef, true, true
	}
	if w.left == 0 {
		w.seq = undef
		x.raise(bRuntimeError, "dictionary keys changed during iteration")
		return undef, false, false
	}
	w.left--
	e := d.entries[i]
	x.read(dv, LocEntry, e.key)
	switch w.kind {
	case iterDictKeys:
		return e.key, false, true
	case iterDictValues:
		return e.val, false, true
	}
	return x.newTuple([]Value{e.key, e.val}), false, true
}

// opForIter is FOR_ITER: the next item pushed, or at the end the iterator
// popped and the loop left (forIterDone). A generator's frame is resumed
// and hands back through retForIter.
func opForIter(x *exec) {
	itv := x.f.top()
	if itv.K == KindRef {
		if _, ok := x.s.heap.get(itv).(*genObj); ok {
			how, v, ran := x.resumeGen(itv, None, undef, retForIter)
			switch {
			case ran:
			case how == returned:
				x.forIterDone()
			default:
				x.exc = v
			}
			return
		}
	}
	v, done, ok := x.next(itv)
	if !ok {
		return
	}
	if done {
		x.forIterDone()
		return
	}
	x.f.push(v)
}

// iterateNow returns all items of v when that runs no Python code (v is
// not a generator): what a C function consuming an iterable does in one
// step. ok is false (x.exc set) when v is not iterable; a generator here
// is a fault (callers that can run one check for it first).
func (x *exec) iterateNow(v Value) ([]Value, bool) {
	if v.K == KindRef {
		if _, ok := x.s.heap.get(v).(*genObj); ok {
			x.unsupported("a generator consumed by this instruction")
			return nil, false
		}
	}
	it, ok := x.iter(v)
	if !ok {
		return nil, false
	}
	var items []Value
	for {
		item, done, ok := x.next(it)
		if !ok {
			return nil, false
		}
		if done {
			return items, true
		}
		items = append(items, item)
	}
}

// iterable reports whether iter(v) would succeed.
func (x *exec) iterable(v Value) bool {
	switch v.K {
	case KindConst:
		return true
	case KindRef:
		switch x.s.heap.get(v).(type) {
		case *dictObj, *viewObj, *seqObj, *rangeObj, *iterObj, *genObj, *opaqueObj:
			return true
		}
	}
	return false
}

func rangeLen(r *rangeObj) int32 {
	switch {
	case r.step > 0 && r.start < r.stop:
		return (r.stop - r.start + r.step - 1) / r.step
	case r.step < 0 && r.start > r.stop:
		return (r.start - r.stop - r.step - 1) / -r.step
	}
	return 0
}
