package pyvm

// Footprints: what a step read and wrote, for the embedder's partial-order
// reduction and for its choice of where a step may end.
//
// An Access names a location of a heap object that another thread can
// reach: an object made during the set-up (the module's and the
// embedder's), or one a thread made and then published by storing it where
// another thread can reach it. Locations of a thread's own unpublished
// objects (its frames, the dict a comprehension is building, the cells of
// its closures) are never reported: no other thread can touch them, so a
// step that touches nothing else is frame-only.

// Access is one location a step read or wrote.
type Access struct {
	Obj Value // the object (KindRef)
	Loc Loc
	Key Value // LocEntry's key
	// Write: the step changed the location (a lock's acquire and release
	// are writes); else it read it.
	Write bool
	// Const: the location never changes after the set-up (a module global
	// no code stores to, an entry of sys.modules, an immutable object's
	// field): the read commutes with every step of every thread.
	Const bool
}

// Loc is which part of an object an access touches. Two accesses to one
// object conflict when one writes and their parts overlap: LocWhole
// overlaps everything, LocShape overlaps LocShape, LocEntry overlaps
// LocEntry of an equal key. A dict store of a new key writes its entry
// and its shape; iterating a dict reads it whole.
type Loc uint8

const (
	// LocEntry is one key of a dict (or one attribute of an instance or
	// module: Key is the name).
	LocEntry Loc = 1 + iota
	// LocShape is a dict's set of keys and their order (what len() and a
	// new iterator read, what an insert or a delete writes).
	LocShape
	// LocWhole is the whole object: a lock's state, a cell's content, a
	// list's items, a generator's frame, every entry of a dict.
	LocWhole
)

// Conflicts reports whether a and b cannot be reordered: the same object,
// overlapping parts, at least one write.
func (a Access) Conflicts(b Access) bool {
	if a.Obj != b.Obj || (!a.Write && !b.Write) {
		return false
	}
	if a.Loc == LocWhole || b.Loc == LocWhole {
		return true
	}
	if a.Loc != b.Loc {
		return false
	}
	return a.Loc == LocShape || a.Key == b.Key
}

// read records a read of o's location if another thread can reach o.
func (x *exec) read(o Value, loc Loc, key Value) {
	if o.K != KindRef || x.s.heap.local(o, x.t) {
		return
	}
	x.info.Accesses = append(x.info.Accesses, Access{Obj: o, Loc: loc, Key: key})
}

// readConst records a read of a location that never changes.
func (x *exec) readConst(o Value, loc Loc, key Value) {
	if o.K != KindRef || x.s.heap.local(o, x.t) {
		return
	}
	x.info.Accesses = append(x.info.Accesses, Access{Obj: o, Loc: loc, Key: key, Const: true})
}

// write records a write of o's location if another thread can reach o.
func (x *exec) write(o Value, loc Loc, key Value) {
	if o.K != KindRef || x.s.heap.local(o, x.t) {
		return
	}
	x.info.Accesses = append(x.info.Accesses, Access{Obj: o, Loc: loc, Key: key, Write: true})
}

// stored is called when v is stored into object into: if another thread
// can reach into, v and everything reachable from it become reachable by
// other threads too (published), and their later accesses are reported.
func (x *exec) stored(into, v Value) {
	if into.K == KindRef && x.s.heap.local(into, x.t) {
		return
	}
	x.publish(v)
}

// publish marks v and what it reaches as shared (an id() does not reach
// its object).
func (x *exec) publish(v Value) {
	if v.K != KindRef {
		return
	}
	h := &x.s.heap
	if h.slots[v.X].owner == 0 {
		return
	}
	h.slots[v.X].owner = 0
	eachRef(h.get(ref(v.X)), x.publish)
}
