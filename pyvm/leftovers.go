package pyvm

// Leftovers are the entries of the loaded module's dict globals (its
// registries) that were not there when the set-up ended (State.Freeze),
// written "name[key] = value", in the module's order: what a swap left
// behind. Two kinds of entry are not leftovers, since a later swap sees
// them as it would a missing one or keeps them by design: an entry whose
// value is a lock or a Condition (a per-module lock registry, which merged's
// defaultdict(threading.Lock) never empties), and an entry of a
// defaultdict(int) that holds 0 (a count read through its default: a
// later `d[k] == 0` or `d[k] += 1` reads it as if missing).
func (s *State) Leftovers() []string {
	x := s.setupExec()
	h := &s.heap
	var out []string
	for _, g := range s.DictItems(s.module) {
		d, ok := s.dictOf(g[1])
		if !ok {
			continue
		}
		var before *dictObj
		if g[1].X < h.setup {
			before, _ = h.base[g[1].X].(*dictObj)
		}
		for _, e := range d.entries {
			if e.dead || hadEntry(x, before, e) {
				continue
			}
			switch s.objOf(e.val).(type) {
			case *lockObj, *condObj:
				continue
			}
			if d.isDefault && d.factory == builtin(bInt) && e.val.K == KindInt && e.val.X == 0 {
				continue
			}
			out = append(out, x.str(g[0])+"["+x.repr(e.key)+"] = "+x.repr(e.val))
		}
	}
	return out
}

// dictOf is v's dict object, if v is a dict.
func (s *State) dictOf(v Value) (*dictObj, bool) {
	if v.K != KindRef {
		return nil, false
	}
	d, ok := s.heap.get(v).(*dictObj)
	return d, ok
}

// objOf is the object v refers to, or nil.
func (s *State) objOf(v Value) object {
	if v.K != KindRef {
		return nil
	}
	return s.heap.get(v)
}

// hadEntry reports whether before (a dict at the set-up, or nil) had e
// with the same key and value.
func hadEntry(x *exec, before *dictObj, e dictEntry) bool {
	if before == nil {
		return false
	}
	for _, b := range before.entries {
		if b.dead {
			continue
		}
		if k, _ := x.equal(b.key, e.key); k {
			if v, _ := x.equal(b.val, e.val); v {
				return true
			}
		}
	}
	return false
}
