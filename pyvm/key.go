package pyvm

import (
	"cmp"
	"encoding/binary"
	"reflect"
	"slices"
	"sync"
)

// AppendKey appends s's canonical key to b and returns it: two states
// have equal keys exactly when one is the other with its heap objects
// renumbered (and unreachable objects dropped), so a search may store the
// key for the state. What it covers: every thread (its task's status, its
// frames, its handled exception, its result), the loaded module and the
// stand-in modules, the fault, and every object reachable from those or
// from a changed set-up object, each with its owner (a thread's
// unpublished objects step differently: footprint.go).
//
// Objects are numbered as a deterministic walk meets them (roots first,
// then breadth-first, each object's fields in the order they are
// written), so allocation order and garbage do not show. Set-up objects (those that
// existed at State.Freeze, shared by every state of the embedder's
// search) keep their heap index as their name and are written only when
// changed since the set-up, in index order, whether or not they are still
// reachable: a set-up object that changed and became garbage makes the
// key finer than the state, never coarser.
//
// Symmetry between threads is not applied here: the key of a state and
// of the same state with two threads' roles exchanged differ (the
// embedder, which knows which threads are alike, permutes them).
func (s *State) AppendKey(b []byte) []byte { return s.AppendKeyWith(b) }

// AppendKeyWith is AppendKey with more roots: the values the embedder
// holds outside the interpreter's threads (a context manager a with
// statement of its own code holds while its body runs), written after
// the threads, in the order given.
func (s *State) AppendKeyWith(b []byte, roots ...Value) []byte {
	return s.AppendKeyOrdered(b, nil, roots...)
}

// AppendKeyOrdered is AppendKeyWith with the threads taken in order
// (a permutation of 0..Threads()-1; nil: as they are): the key of the
// state in which thread order[i] is thread i, its objects' owners and
// the RLocks it holds renamed with it. An embedder whose threads are
// alike (a block's GPU threads running the same code) keys a state up to
// their permutation by choosing order from the state (sorting the
// threads by what each holds): equal keys then mean states equal up to
// renaming the threads, so the reduction is sound whatever order it
// picks; a poor order only finds fewer states equal.
func (s *State) AppendKeyOrdered(b []byte, order []int, roots ...Value) []byte {
	return s.AppendKeyThen(b, order, nil, roots...)
}

// AppendKeyThen is AppendKeyOrdered, then what more appends (nil: nothing):
// the embedder's own record of the state's objects, written with
// name(v), the name this key gave v's object (a set-up object's heap
// index; another object's number in the walk, after those), or -1 for an
// object the walk did not meet (garbage: nothing can reach it again).
// Names from name are canonical as the key is, so the embedder's record
// keys equal states alike when it is written in an order of those names.
func (s *State) AppendKeyThen(b []byte, order []int, more func(b []byte, name func(Value) int64) []byte, roots ...Value) []byte {
	return s.AppendKeyUnordered(b, order, nil, more, roots...)
}

// AppendKeyUnordered is AppendKeyThen with the dicts unordered says so
// of written as sets: their live entries sorted by key, without their
// layout, so that two states that differ only in the order such a dict
// took its keys in share a key. The embedder answers for it: no code
// may observe such a dict's order (iterate it, take its length, copy
// it). A dict with a key that is neither a str, an int nor (an id of) a
// set-up object is written as it is (its keys have no name to sort by
// before the walk).
func (s *State) AppendKeyUnordered(b []byte, order []int, unordered func(Value) bool, more func(b []byte, name func(Value) int64) []byte, roots ...Value) []byte {
	sc := keyPool.Get().(*keyScratch)
	defer keyPool.Put(sc)
	k := newKeyer(s, b, sc)
	k.unordered = unordered
	if order != nil {
		k.rank = slices.Grow(sc.rank[:0], len(s.threads))[:len(s.threads)]
		sc.rank = k.rank
		for i, t := range order {
			k.rank[t] = int16(i)
		}
	}
	k.int(int64(len(s.threads)))
	for i := range s.threads {
		if order != nil {
			i = order[i]
		}
		k.threadState(&s.threads[i])
	}
	k.values(roots)
	k.value(s.module)
	k.value(s.modules)
	k.str(s.fault)
	h := &s.heap
	for i := int32(0); i < h.setup; i++ {
		if sameAsBase(h, i) {
			continue
		}
		k.int(int64(i))
		k.object(i)
	}
	k.int(-1)
	for q := 0; q < len(k.queue); q++ {
		k.object(k.queue[q])
	}
	if more != nil {
		k.b = more(k.b, k.name)
	}
	k.done()
	return k.b
}

// AppendThreadKey appends the key of what thread t holds alone: its
// task, its frames and the roots given, with every object it made and
// has not published written in full, numbered as the walk meets them,
// and every other object named by its heap index, unwritten. Two
// threads with equal keys hold isomorphic objects of their own that
// point at the same objects of others', so exchanging the two maps the
// state to one equal to it up to renumbering (an embedder's symmetry
// then finds their swap leaves the state as it is).
func (s *State) AppendThreadKey(b []byte, t int, roots ...Value) []byte {
	sc := keyPool.Get().(*keyScratch)
	defer keyPool.Put(sc)
	k := newKeyer(s, b, sc)
	k.only = int16(t + 1)
	k.threadState(&s.threads[t])
	k.values(roots)
	for q := 0; q < len(k.queue); q++ {
		k.object(k.queue[q])
	}
	k.done()
	return k.b
}

// newKeyer is a keyer of s appending to b, numbering in sc's table
// (from keyPool) sized to the heap, queueing in its queue.
func newKeyer(s *State, b []byte, sc *keyScratch) keyer {
	if cap(sc.num) < len(s.heap.slots) {
		sc.num = make([]int32, len(s.heap.slots))
	}
	k := keyer{s: s, b: b, num: sc.num[:len(s.heap.slots)], queue: sc.queue[:0], scratch: sc}
	for i := range k.num {
		k.num[i] = -1
	}
	return k
}

// threadState writes what thread th holds: its task's status, its frames,
// its handled exception, its result and its object.
func (k *keyer) threadState(th *thread) {
	k.bool(th.busy)
	k.int(int64(len(th.frames)))
	for _, f := range th.frames {
		k.value(ref(f))
	}
	k.value(th.excBase)
	k.value(th.result)
	k.value(th.raised)
	k.value(th.obj)
}

// name is v's object's name in the key written (AppendKeyThen), -1 when
// the walk did not meet it.
func (k *keyer) name(v Value) int64 {
	if v.X < k.s.heap.setup {
		return int64(v.X)
	}
	if n := k.num[v.X]; n >= 0 {
		return int64(k.s.heap.setup) + int64(n)
	}
	return -1
}

// keyScratch is what a keyer writes in besides the key: its numbering
// table, its queue and its threads' ranks.
type keyScratch struct {
	num, queue []int32
	rank       []int16
}

// keyPool holds keyers' scratch, one per key being written (a search
// keys every state it makes: the table was most of a key's allocation,
// the queue grown from nothing much of the rest).
var keyPool = sync.Pool{New: func() any { return new(keyScratch) }}

// sameAsBase reports whether set-up object i is as it was at Freeze: the
// same object, or a copy a write made that holds the same fields again.
// The answer is kept in the slot (slot.asBase) until the object is
// written.
func sameAsBase(h *heap, i int32) bool {
	s := &h.slots[i]
	if s.obj == h.base[i] {
		return true
	}
	if s.asBase == baseUnknown {
		s.asBase = baseChanged
		if reflect.DeepEqual(s.obj, h.base[i]) {
			s.asBase = baseSame
		}
	}
	return s.asBase == baseSame
}

// keyer writes one key.
type keyer struct {
	s     *State
	b     []byte
	num   []int32 // heap index -> canonical number, -1 before the walk meets it
	queue []int32 // heap indices numbered and not yet written, in number order
	rank  []int16 // thread index -> its place in the key (nil: itself)
	// only, when set, is the thread (index+1) whose own objects alone
	// are written (AppendThreadKey)
	only int16
	// unordered: the dicts written as sets (AppendKeyUnordered)
	unordered func(Value) bool
	// scratch is where num and queue came from; done hands the queue,
	// grown, back to it
	scratch *keyScratch
}

// done keeps the queue's storage for the next key.
func (k *keyer) done() { k.scratch.queue = k.queue[:0] }

// thread writes a thread number kept as index+1 (0: none), renamed by
// the key's order.
func (k *keyer) thread(owner int16) {
	if k.only != 0 && owner == k.only {
		owner = 1 // the thread itself, whichever it is
	}
	if owner > 0 && k.rank != nil {
		owner = k.rank[owner-1] + 1
	}
	k.int(int64(owner))
}

func (k *keyer) int(n int64)  { k.b = binary.AppendVarint(k.b, n) }
func (k *keyer) byte(c uint8) { k.b = append(k.b, c) }

func (k *keyer) bool(v bool) {
	if v {
		k.byte(1)
		return
	}
	k.byte(0)
}

func (k *keyer) str(s string) {
	k.int(int64(len(s)))
	k.b = append(k.b, s...)
}

// value writes v; a reference (or an id) to a set-up object by its index,
// to any other object by its number, numbering it when first met.
func (k *keyer) value(v Value) {
	k.byte(uint8(v.K))
	if !v.refersTo() {
		k.int(int64(v.X))
		return
	}
	if k.only != 0 && k.s.heap.slots[v.X].owner != k.only {
		k.int(-2 - int64(v.X)) // another's, or shared: by its index
		return
	}
	if v.X >= k.s.heap.setup && k.num[v.X] < 0 {
		k.num[v.X] = int32(len(k.queue))
		k.queue = append(k.queue, v.X)
	}
	k.int(k.name(v))
}

func (k *keyer) values(vs []Value) {
	k.int(int64(len(vs)))
	for _, v := range vs {
		k.value(v)
	}
}

func (k *keyer) code(c *Code) {
	if c == nil {
		k.int(-1)
		return
	}
	k.int(int64(c.id))
}

// sortedEntries is d's live entries sorted by key, when every key has a
// name that does not depend on the walk: a str, an int, a set-up object.
func (k *keyer) sortedEntries(d *dictObj) ([]dictEntry, bool) {
	live := make([]dictEntry, 0, d.used)
	for _, e := range d.entries {
		if e.dead {
			continue
		}
		switch {
		case e.key.K == KindStr, e.key.K == KindInt:
		case e.key.refersTo() && e.key.X < k.s.heap.setup:
		default:
			return nil, false
		}
		live = append(live, e)
	}
	slices.SortFunc(live, func(a, b dictEntry) int {
		if c := cmp.Compare(a.key.K, b.key.K); c != 0 {
			return c
		}
		return cmp.Compare(a.key.X, b.key.X)
	})
	return live, true
}

// object writes heap object i: its owner, its type and its fields.
func (k *keyer) object(i int32) {
	sl := &k.s.heap.slots[i]
	k.thread(sl.owner)
	switch o := sl.obj.(type) {
	case *dictObj:
		k.byte(1)
		k.bool(o.isDefault)
		k.value(o.factory)
		k.int(int64(o.used))
		if k.unordered != nil && k.unordered(ref(i)) {
			if live, ok := k.sortedEntries(o); ok {
				k.byte(2) // a set of entries
				for _, e := range live {
					k.value(e.key)
					k.value(e.val)
				}
				return
			}
		}
		// The layout, dead entries included: an iterator's pos indexes it.
		k.int(int64(len(o.entries)))
		for _, e := range o.entries {
			k.bool(e.dead)
			if !e.dead {
				k.value(e.key)
				k.value(e.val)
			}
		}
	case *strObj:
		k.byte(2)
		k.str(o.s)
	case *seqObj:
		k.byte(3)
		k.bool(o.tuple)
		k.values(o.items)
	case *cellObj:
		k.byte(4)
		k.value(o.v)
	case *funcObj:
		k.byte(5)
		k.code(o.code)
		k.value(o.globals)
		k.value(o.closure)
		k.values(o.defaults)
		k.value(o.kwDefaults)
	case *genObj:
		k.byte(6)
		k.value(o.frame)
		k.byte(uint8(o.state))
		k.code(o.code)
	case *cmFactoryObj:
		k.byte(7)
		k.value(o.fn)
	case *cmObj:
		k.byte(8)
		k.value(o.gen)
		k.value(o.fn)
		k.value(o.args)
		k.bool(o.entered)
	case *lockObj:
		k.byte(9)
		k.bool(o.locked)
		k.bool(o.reentrant)
		k.thread(o.owner)
		k.int(int64(o.count))
	case *iterObj:
		k.byte(10)
		k.byte(uint8(o.kind))
		k.value(o.seq)
		k.int(int64(o.pos))
		k.int(int64(o.used))
		k.int(int64(o.left))
		k.int(int64(o.stop))
		k.int(int64(o.step))
	case *viewObj:
		k.byte(11)
		k.value(o.dict)
		k.byte(uint8(o.kind))
	case *rangeObj:
		k.byte(12)
		k.int(int64(o.start))
		k.int(int64(o.stop))
		k.int(int64(o.step))
	case *methodObj:
		k.byte(13)
		k.value(o.fn)
		k.value(o.self)
	case *excObj:
		k.byte(14)
		k.value(o.typ)
		k.values(o.args)
		k.str(o.msg)
		k.value(o.cause)
	case *moduleObj:
		k.byte(15)
		k.value(o.name)
		k.value(o.attrs)
		k.bool(o.host)
		k.int(int64(o.tag))
	case *opaqueObj:
		k.byte(16)
		k.str(o.name)
	case *hostObj:
		k.byte(17)
		k.str(o.label)
		k.int(int64(o.tag))
		k.bool(o.fn)
		k.value(o.globals)
		k.value(o.attrOf)
	case *classObj:
		k.byte(18)
		k.value(o.name)
		k.values(o.bases)
		k.value(o.ns)
	case *instanceObj:
		k.byte(19)
		k.value(o.cls)
		k.value(o.dict)
	case *propertyObj:
		k.byte(20)
		k.value(o.fget)
		k.int(int64(o.kind))
	case *frameObj:
		k.byte(21)
		k.code(o.code)
		k.byte(uint8(o.native))
		k.int(int64(o.pc))
		k.int(int64(o.lasti))
		k.values(o.stack)
		k.values(o.locals)
		k.value(o.globals)
		k.value(o.names)
		k.value(o.gen)
		k.value(o.fn)
		k.value(o.excInfo)
		k.byte(uint8(o.ret))
		k.value(o.kwnames)
		k.values(o.tmp)
	case *threadObj:
		k.byte(22)
		k.thread(o.t)
		k.value(o.attrs)
		k.str(o.class)
	case *condObj:
		k.byte(23)
		k.value(o.lock)
		k.values(o.waiters)
	default:
		panic("pyvm: AppendKey of an unknown object")
	}
}

// AppendThreadShape appends what thread t is running, without the objects
// it holds: whether it has a task, and each frame's code and next
// instruction (a native frame's state). An embedder sorts alike threads
// by it to choose AppendKeyOrdered's order.
func (s *State) AppendThreadShape(b []byte, t int) []byte {
	th := &s.threads[t]
	k := keyer{s: s, b: b}
	k.bool(th.busy)
	k.int(int64(len(th.frames)))
	for _, f := range th.frames {
		fr := s.heap.slots[f].obj.(*frameObj)
		k.code(fr.code)
		k.int(int64(fr.native))
		k.int(int64(fr.pc))
	}
	return k.b
}
