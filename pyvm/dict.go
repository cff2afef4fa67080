package pyvm

// Dict operations, each recording what it touches (footprint.go). A dict
// is a defaultdict when isDefault; its miss runs in the subscript
// (ops_subscr.go), not here.

// dictFind returns the index of key's live entry in d, -1 if absent; ok is
// false when the key is unhashable (x.exc set).
func (x *exec) dictFind(d *dictObj, key Value) (int, bool) {
	if !x.hashable(key) {
		return -1, false
	}
	for i := range d.entries {
		e := &d.entries[i]
		if e.dead {
			continue
		}
		if e.key == key {
			return i, true
		}
		if sameKeyKind(e.key, key) {
			eq, ok := x.equal(e.key, key)
			if !ok {
				return -1, false
			}
			if eq {
				return i, true
			}
		}
	}
	return -1, true
}

// sameKeyKind reports whether two keys that are not the same Value may
// still be equal (a number and a bool, two tuples).
func sameKeyKind(a, b Value) bool {
	if num(a) && num(b) {
		return true
	}
	ta := a.K == KindConst || a.K == KindRef || a.K == KindStr
	tb := b.K == KindConst || b.K == KindRef || b.K == KindStr
	return ta && tb && !(a.K == KindStr && b.K == KindStr)
}

// dictGet reads d[key] of dict dv: the value and whether it is there.
func (x *exec) dictGet(dv, key Value) (Value, bool, bool) {
	d := x.s.heap.get(dv).(*dictObj)
	i, ok := x.dictFind(d, key)
	if !ok {
		return undef, false, false
	}
	x.read(dv, LocEntry, key)
	if i < 0 {
		return undef, false, true
	}
	return d.entries[i].val, true, true
}

// dictSet stores d[key] = val; false if key is unhashable.
func (x *exec) dictSet(dv, key, val Value) bool {
	d := x.s.heap.get(dv).(*dictObj)
	i, ok := x.dictFind(d, key)
	if !ok {
		return false
	}
	d = x.s.heap.mut(dv).(*dictObj)
	x.write(dv, LocEntry, key)
	x.stored(dv, key)
	x.stored(dv, val)
	if i >= 0 {
		d.entries[i].val = val
		return true
	}
	x.write(dv, LocShape, undef)
	if dead := int32(len(d.entries)) - d.used; dead >= 8 && dead >= d.used {
		d.compact()
	}
	d.entries = append(d.entries, dictEntry{key: key, val: val})
	d.used++
	return true
}

// compact drops dead entries, keeping order, as CPython's resize on an
// insert does (an iterator running over d at that moment may then skip or
// repeat entries in CPython too; it has also seen the size change, and
// raises unless a delete made up for the insert).
func (d *dictObj) compact() {
	live := d.entries[:0]
	for _, e := range d.entries {
		if !e.dead {
			live = append(live, e)
		}
	}
	d.entries = append([]dictEntry(nil), live...)
}

// dictDel deletes d[key]: false, with KeyError raised, when absent (or
// the key is unhashable).
func (x *exec) dictDel(dv, key Value) bool {
	d := x.s.heap.get(dv).(*dictObj)
	i, ok := x.dictFind(d, key)
	if !ok {
		return false
	}
	if i < 0 {
		x.read(dv, LocEntry, key)
		x.raiseKeyError(key)
		return false
	}
	d = x.s.heap.mut(dv).(*dictObj)
	x.write(dv, LocEntry, key)
	x.write(dv, LocShape, undef)
	d.entries[i] = dictEntry{dead: true}
	d.used--
	return true
}

// newDict makes an empty dict owned by the thread.
func (x *exec) newDict() Value { return x.s.heap.alloc(&dictObj{}, x.t) }

// newList makes a list of items (copied).
func (x *exec) newList(items []Value) Value {
	return x.s.heap.alloc(&seqObj{items: append([]Value(nil), items...)}, x.t)
}

// newTuple makes a tuple of items (copied).
func (x *exec) newTuple(items []Value) Value {
	return x.s.heap.alloc(&seqObj{items: append([]Value(nil), items...), tuple: true}, x.t)
}

// asDict returns v's dictObj if v is a dict (or defaultdict).
func (x *exec) asDict(v Value) (*dictObj, bool) {
	if v.K != KindRef {
		return nil, false
	}
	d, ok := x.s.heap.get(v).(*dictObj)
	return d, ok
}
