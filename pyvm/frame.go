package pyvm

// frameObj is a frame: a Python function's activation (code set) or a
// native one (native set), which stands for library code that CPython runs
// in C or in Python the interpreter does not load (contextlib's
// _GeneratorContextManager, dict(iterable), ...), written as a small state
// machine so that every Python frame it calls runs one instruction per
// step like any other.
type frameObj struct {
	code   *Code
	native nativeKind
	pc     int32 // the next instruction (index into code.Instrs), or a native frame's state
	lasti  int32 // the instruction running or last run (what the exception table is searched for)
	stack  []Value
	locals []Value // fast slots, indexed as code.LocalsPlus
	// globals is the function's globals dict; names the dict LOAD_NAME and
	// STORE_NAME use (a module's globals, a class body's namespace), Undef
	// in a function.
	globals, names Value
	gen            Value // the generator running in this frame, Undef if none
	fn             Value // the function called (COPY_FREE_VARS reads its closure)
	// excInfo is a generator frame's own handled exception (gi_exc_state):
	// PUSH_EXC_INFO and POP_EXCEPT save and restore it while the generator
	// runs, and it stays with the generator while suspended.
	excInfo Value
	ret     retMode // how the caller takes this frame's outcome
	kwnames Value   // KW_NAMES' tuple for the next CALL (3.11, 3.12)
	tmp     []Value // a native frame's registers
}

func (f *frameObj) clone() object {
	c := *f
	c.stack = append(make([]Value, 0, cap(f.stack)), f.stack...)
	c.locals = append([]Value(nil), f.locals...)
	c.tmp = append([]Value(nil), f.tmp...)
	return &c
}

// retMode says what the caller does with a frame's outcome.
type retMode uint8

const (
	// retPush: a call; the returned value is pushed, an exception raised
	// in the caller.
	retPush retMode = 1 + iota
	// retPushCheck: as retPush, for a callee CPython runs from C (a
	// builtin that runs Python code, CALL_FUNCTION_EX), after whose return
	// the calling instruction checks the eval breaker.
	retPushCheck
	// retNext: a generator resumed by next(), send() or throw(): a yield
	// is pushed, a return raises StopIteration(value).
	retNext
	// retNextCheck: as retNext, resumed from C (next(), gen.send()), so
	// the calling CALL checks the eval breaker after a yield.
	retNextCheck
	// retForIter: a generator resumed by FOR_ITER: a yield is pushed, a
	// return ends the loop.
	retForIter
	// retNative: the caller is a native frame, which takes any outcome.
	retNative
	// retNativeNext: a generator resumed by a native frame as next() does:
	// a yield reaches the native as a return, a return as StopIteration.
	retNativeNext
)

// outcome is how a frame ended its run: it returned, yielded (a
// generator's frame, kept for later) or raised.
type outcome uint8

const (
	returned outcome = 1 + iota
	yielded
	raised
)

func (f *frameObj) push(v Value) { f.stack = append(f.stack, v) }

func (f *frameObj) pop() Value {
	v := f.stack[len(f.stack)-1]
	f.stack = f.stack[:len(f.stack)-1]
	return v
}

func (f *frameObj) top() Value { return f.stack[len(f.stack)-1] }

// peek returns the i-th entry from the top (1: the top).
func (f *frameObj) peek(i int) Value { return f.stack[len(f.stack)-i] }

func (f *frameObj) setPeek(i int, v Value) { f.stack[len(f.stack)-i] = v }

// popN removes the top n entries and returns them, bottom first; the slice
// aliases the stack's spare capacity, so it is valid until the next push.
func (f *frameObj) popN(n int) []Value {
	vs := f.stack[len(f.stack)-n:]
	f.stack = f.stack[:len(f.stack)-n]
	return vs
}
