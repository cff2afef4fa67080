package pyvm

// Value is what a Python variable, a value-stack slot or a container
// entry holds: an immediate (None, a bool, a small int, an interned
// string) or a reference to something with identity (a heap object, a
// builtin, a constant). It is 8 bytes and holds no Go pointer, so frames
// and containers copy by value and the canonical key can renumber it.
type Value struct {
	K Kind
	X int32
}

// Kind says what a Value's X means.
type Kind uint8

// The kinds of Value. The zero Value is KindUndef: an unbound fast slot.
const (
	KindUndef   Kind = iota // an unbound local, an empty cell
	KindNull                // the NULL that PUSH_NULL and LOAD_GLOBAL push
	KindNone                // None
	KindBool                // X: 0 or 1
	KindInt                 // X: the int (ints stay in 32 bits; wider is unsupported)
	KindStr                 // X: the string's index in the Program's strings
	KindRef                 // X: a heap object
	KindID                  // the int id(obj) returned for heap object X
	KindBuiltin             // X: a builtin (function, type, stand-in module, method)
	KindConst               // X: a tuple or frozenset constant in the Program's pool
	KindCode                // X: a Code's id (a code object constant)
	KindLasti               // X: an instruction offset an exception handler pushed
	KindFloat               // X: a float constant's index in the Program's floats
)

// Shorthands for immediates.
var (
	None  = Value{K: KindNone}
	True  = Value{K: KindBool, X: 1}
	False = Value{K: KindBool}
	null  = Value{K: KindNull}
	undef = Value{}
)

// Int is the Value of a small int.
func Int(n int32) Value { return Value{K: KindInt, X: n} }

// Bool is True or False.
func Bool(b bool) Value {
	if b {
		return True
	}
	return False
}

// Ref is the Value of heap object i (as NewObject and friends return it).
func ref(i int32) Value { return Value{K: KindRef, X: i} }

// IsRef reports whether v is a heap object.
func (v Value) IsRef() bool { return v.K == KindRef }

// refersTo reports whether v points into the heap (a reference or an
// id), so that a walk of the heap must follow or renumber it.
func (v Value) refersTo() bool { return v.K == KindRef || v.K == KindID }
