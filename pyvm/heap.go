package pyvm

// heap holds every object of a State, indexed by the X of a KindRef Value.
// It is copy-on-write: Clone copies the slot slice (one pointer per
// object) and marks every slot as shared with the copy; the first write to
// a shared slot, in either heap, copies that object alone. A slot is this
// heap's own when its gen equals the heap's, and Clone moves both heaps to
// a gen no slot has yet.
type heap struct {
	slots []slot
	gen   uint32
	// setup is how many objects existed when the embedder froze the
	// set-up (State.Freeze); base holds them as they were then, so the key
	// can say "unchanged since set-up" in no words.
	setup int32
	base  []object
}

type slot struct {
	obj   object
	gen   uint32
	owner int16 // the thread index + 1 that made it and has not published it; 0: shared
	// asBase caches sameAsBase for a set-up object: baseUnknown until a
	// key asks, then baseSame or baseChanged until mut hands the object
	// out for writing. A clone of the heap copies it with the pointer it
	// speaks of, so a state keyed after a step that left the object alone
	// compares nothing (BenchmarkVerdict/*/source: reflect.DeepEqual was
	// a tenth of a search's time).
	asBase uint8
}

// The values of slot.asBase.
const (
	baseUnknown uint8 = iota
	baseSame
	baseChanged
)

// alloc adds o, owned by thread t (-1: shared), and returns its Value.
func (h *heap) alloc(o object, t int) Value {
	h.slots = append(h.slots, slot{obj: o, gen: h.gen, owner: int16(t + 1)})
	return ref(int32(len(h.slots) - 1))
}

// get returns the object of v for reading; the caller must not change it.
func (h *heap) get(v Value) object { return h.slots[v.X].obj }

// mut returns the object of v for writing, copying it first when shared
// with another heap.
func (h *heap) mut(v Value) object {
	s := &h.slots[v.X]
	if s.gen != h.gen {
		s.obj = s.obj.clone()
		s.gen = h.gen
	}
	s.asBase = baseUnknown
	return s.obj
}

// clone returns a copy sharing every object with h until written.
func (h *heap) clone() heap {
	h.gen++
	c := *h
	c.slots = append(make([]slot, 0, len(h.slots)+8), h.slots...)
	return c
}

// local reports whether object v is thread t's own (made by it and not
// published).
func (h *heap) local(v Value, t int) bool { return h.slots[v.X].owner == int16(t+1) }
