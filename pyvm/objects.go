package pyvm

// The heap's objects: plain structs, one per kind of Python object the
// interpreter models. Each copies itself (clone) for the heap's
// copy-on-write; none holds a Go pointer to another object (references
// are Values), so a State copies by copying slices.

type object interface {
	clone() object
}

// dictObj is a dict, or a collections.defaultdict when isDefault. Like
// CPython's it keeps insertion order in entries; a deleted entry stays as
// a dead slot (CPython's dummy) so that an iterator's position keeps its
// meaning, until the key's walk drops it.
type dictObj struct {
	entries   []dictEntry
	used      int32 // live entries: len(d)
	isDefault bool
	factory   Value // default_factory (None when a defaultdict has none)
}

type dictEntry struct {
	key, val Value
	dead     bool
}

func (d *dictObj) clone() object {
	c := *d
	c.entries = append([]dictEntry(nil), d.entries...)
	return &c
}

// strObj is a str made at run time (str(e), a concatenation) whose text
// the Program has not interned; a str Value is either this or KindStr,
// and the two compare by content.
type strObj struct{ s string }

func (s *strObj) clone() object { c := *s; return &c }

// seqObj is a list or a tuple.
type seqObj struct {
	items []Value
	tuple bool
}

func (s *seqObj) clone() object {
	c := *s
	c.items = append([]Value(nil), s.items...)
	return &c
}

// cellObj is a closure cell (MAKE_CELL); Undef when empty.
type cellObj struct{ v Value }

func (c *cellObj) clone() object { d := *c; return &d }

// funcObj is a Python function (MAKE_FUNCTION).
type funcObj struct {
	code       *Code
	globals    Value // the module's globals dict
	closure    Value // a tuple of cells, or Undef
	defaults   []Value
	kwDefaults Value // a dict, or Undef
}

func (f *funcObj) clone() object {
	c := *f
	c.defaults = append([]Value(nil), f.defaults...)
	return &c
}

// genState is a generator's gi_frame_state, reduced to what Python can
// tell apart.
type genState uint8

const (
	genCreated genState = 1 + iota
	genSuspended
	genRunning
	genDone
)

// genObj is a generator: the frame it runs (Undef once done) and its
// state.
type genObj struct {
	frame Value
	state genState
	code  *Code
}

func (g *genObj) clone() object { c := *g; return &c }

// cmFactoryObj is what @contextmanager returns: calling it builds a
// _GeneratorContextManager over a new generator of fn.
type cmFactoryObj struct{ fn Value }

func (c *cmFactoryObj) clone() object { d := *c; return &d }

// cmObj is contextlib's _GeneratorContextManager: the generator and, until
// __enter__ drops them (del self.args, self.kwds, self.func), the call
// that made it.
type cmObj struct {
	gen     Value
	fn      Value
	args    Value // a tuple, or Undef once __enter__ ran
	entered bool
}

func (c *cmObj) clone() object { d := *c; return &d }

// lockObj is a threading.Lock, or an RLock when reentrant (owner and
// count then say who holds it how many times; a Lock has no owner).
type lockObj struct {
	locked    bool
	reentrant bool
	owner     int16 // RLock: thread index + 1
	count     int32 // RLock: recursion depth
}

func (l *lockObj) clone() object { c := *l; return &c }

// iterKind says what an iterObj walks.
type iterKind uint8

const (
	iterDictKeys iterKind = 1 + iota
	iterDictValues
	iterDictItems
	iterSeq   // a list or tuple (heap)
	iterConst // a tuple or frozenset constant
	iterRange
)

// iterObj is an iterator over a dict, a sequence or a range. For a dict
// it follows CPython's dictiter: pos is the next entry slot, used the
// dict's size when the iteration started (-1 once a change was seen),
// left how many entries are still to come.
type iterObj struct {
	kind iterKind
	seq  Value // the dict, list, tuple or constant walked; Undef when exhausted
	pos  int32
	used int32
	left int32
	stop int32 // range
	step int32 // range
}

func (it *iterObj) clone() object { c := *it; return &c }

// viewObj is a dict view (d.keys(), d.values(), d.items()).
type viewObj struct {
	dict Value
	kind iterKind
}

func (v *viewObj) clone() object { c := *v; return &c }

// rangeObj is range(start, stop, step).
type rangeObj struct{ start, stop, step int32 }

func (r *rangeObj) clone() object { c := *r; return &c }

// methodObj is a bound method: a function (Python or builtin) and self.
type methodObj struct{ fn, self Value }

func (m *methodObj) clone() object { c := *m; return &c }

// excObj is an exception instance: its type (a builtin exception type)
// and args; msg, when set, is a message made by the interpreter itself
// (TypeError("cannot unpack non-iterable NoneType object")), which is its
// only arg.
type excObj struct {
	typ   Value
	args  []Value
	msg   string
	cause Value // __cause__ (raise ... from, and the RuntimeError PEP 479 makes)
}

func (e *excObj) clone() object {
	c := *e
	c.args = append([]Value(nil), e.args...)
	return &c
}

// moduleObj is a module the file imports: a stand-in with no attributes
// of its own (numpy, numba's modules: each attribute another stand-in,
// made when first read), or the embedder's (a host module, such as the
// real numba.cuda).
type moduleObj struct {
	name  Value // interned full name
	attrs Value // a dict of the attributes read or bound so far
	host  bool
	tag   int32 // the embedder's number for a host module
}

func (m *moduleObj) clone() object { c := *m; return &c }

// opaqueObj is an attribute of a stand-in module: usable as a value (bound,
// stored, compared by identity), failing when called or otherwise used.
type opaqueObj struct {
	name string
}

func (o *opaqueObj) clone() object { c := *o; return &c }

// hostObj is an object the embedder owns: a launch's fake module, or a
// device function (then globals is its __globals__).
type hostObj struct {
	label   string
	tag     int32
	fn      bool
	globals Value
	// attrOf: an attribute of the embedder's object or module attrOf
	// (a fake's local, the real module's threadIdx): the code may bind,
	// compare and return it, and the embedder asks what it is of
	// (HostAttr); any other use is not modelled
	attrOf Value
}

func (h *hostObj) clone() object { c := *h; return &c }

// classObj is a class a class statement made; its namespace is the dict
// the body filled.
type classObj struct {
	name  Value
	bases []Value
	ns    Value
}

func (c *classObj) clone() object {
	d := *c
	d.bases = append([]Value(nil), c.bases...)
	return &d
}

// instanceObj is an instance of a classObj.
type instanceObj struct{ cls, dict Value }

func (i *instanceObj) clone() object { c := *i; return &c }

// propertyObj is property(fget), or staticmethod(fget) or
// classmethod(fget) (kind says which): a descriptor a class body makes.
type propertyObj struct {
	fget Value
	kind builtinID // bProperty, bStaticmethod or bClassmethod
}

func (p *propertyObj) clone() object { c := *p; return &c }
