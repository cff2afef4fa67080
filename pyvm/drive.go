package pyvm

import (
	"errors"
	"fmt"
)

// Driving: what an embedder calls, in order (doc.go shows it whole).
//
//  1. NewState, then the host objects the code will see (NewHostModule for
//     the real numba.cuda, SetModule to bind it in sys.modules, NewDict
//     and DictSet for a device module's globals, NewHostFunction for the
//     device function, NewHostObject for each launch's fake module).
//  2. RunModule: the module body, to its end, as an import would.
//  3. Freeze: the set-up is over; what exists now is shared by every
//     thread and is the base the key compares against.
//  4. Per thread: Begin a call (the swap function), Step until Idle, read
//     Result; Enter and Exit the context manager it returned the same
//     way, running the body in between.

// NewState makes the state before the module body runs: n idle threads,
// sys.modules with the interpreter's stand-in modules, and the module's
// globals holding __name__ and __package__.
func (p *Program) NewState(n int) *State {
	s := &State{p: p, threads: make([]thread, n)}
	s.modules = s.heap.alloc(&dictObj{}, -1)
	s.module = s.heap.alloc(&dictObj{}, -1)
	x := s.setupExec()
	for _, name := range []string{"collections", "contextlib", "threading"} {
		x.dictSet(s.modules, p.Str(name), builtin(standInModules[name]))
	}
	x.dictSet(s.module, p.Str("__name__"), p.Str(p.Options.ModuleName))
	pkg := None
	if p.Options.Package != "" {
		pkg = p.Str(p.Options.Package)
	}
	x.dictSet(s.module, p.Str("__package__"), pkg)
	return s
}

// setupExec is an exec for the embedder's set-up calls: no thread, no
// footprint.
func (s *State) setupExec() *exec {
	return &exec{p: s.p, s: s, t: -1, info: &StepInfo{}}
}

// NewDict makes an empty dict (a device module's globals).
func (s *State) NewDict() Value { return s.heap.alloc(&dictObj{}, -1) }

// DictSet stores d[key] = v during the set-up.
func (s *State) DictSet(d, key, v Value) { s.setupExec().dictSet(d, key, v) }

// DictGet reads d[key] (no footprint: for the embedder's own reads).
func (s *State) DictGet(d, key Value) (Value, bool) {
	v, found, _ := s.setupExec().dictGet(d, key)
	return v, found
}

// DictItems are d's entries in order.
func (s *State) DictItems(d Value) [][2]Value {
	var out [][2]Value
	for _, e := range s.heap.get(d).(*dictObj).entries {
		if !e.dead {
			out = append(out, [2]Value{e.key, e.val})
		}
	}
	return out
}

// Global is the loaded module's global name.
func (s *State) Global(name string) (Value, bool) {
	k, ok := s.p.lookupStr(name)
	if !ok {
		return undef, false
	}
	return s.DictGet(s.module, k)
}

// NewHostModule makes a module the embedder owns (the real numba.cuda):
// the code can bind it, compare it and read stand-ins from it, nothing
// more. tag is the embedder's number for it (what the key records).
func (s *State) NewHostModule(name string, tag int32) Value {
	attrs := s.heap.alloc(&dictObj{}, -1)
	return s.heap.alloc(&moduleObj{name: s.p.Str(name), attrs: attrs, host: true, tag: tag}, -1)
}

// SetModule binds sys.modules[name] = v (and the parent packages' stand-ins,
// made if missing).
func (s *State) SetModule(name string, v Value) {
	x := s.setupExec()
	for i := lastDot(name); i >= 0; i = lastDot(name[:i]) {
		s.p.Str(name[:i]) // a package the file never names (no "numba" in it)
	}
	if i := lastDot(name); i >= 0 {
		x.importModule(name[:i])
	}
	x.dictSet(s.modules, s.p.Str(name), v)
}

// NewHostObject makes an opaque object the embedder owns (a launch's fake
// module); tag is its number for the key.
func (s *State) NewHostObject(label string, tag int32) Value {
	return s.heap.alloc(&hostObj{label: label, tag: tag}, -1)
}

// NewHostFunction makes a function the embedder owns (a device function),
// whose __globals__ is globals.
func (s *State) NewHostFunction(label string, tag int32, globals Value) Value {
	return s.heap.alloc(&hostObj{label: label, tag: tag, fn: true, globals: globals}, -1)
}

// HostTag is the tag of a host object or module, and whether v is one.
func (s *State) HostTag(v Value) (int32, bool) {
	if v.K != KindRef {
		return 0, false
	}
	switch o := s.heap.get(v).(type) {
	case *hostObj:
		return o.tag, true
	case *moduleObj:
		return o.tag, o.host
	}
	return 0, false
}

// HostAttr reports whether v is an attribute the code read of one of the
// embedder's objects or modules, and of which (a fake's local).
func (s *State) HostAttr(v Value) (of Value, ok bool) {
	if v.K != KindRef {
		return undef, false
	}
	if o, isHost := s.heap.get(v).(*hostObj); isHost && o.attrOf.K != KindUndef {
		return o.attrOf, true
	}
	return undef, false
}

// Getattribute is the __getattribute__ function of v's class, when v is
// an instance of a class of the file's that defines one: what CPython
// calls with (v, name) for every attribute read of v (an embedder's
// statement reading one runs it as a task: Begin).
func (s *State) Getattribute(v Value) (Value, bool) {
	if v.K != KindRef {
		return undef, false
	}
	o, ok := s.heap.get(v).(*instanceObj)
	if !ok {
		return undef, false
	}
	name, interned := s.p.lookupStr("__getattribute__")
	if !interned {
		return undef, false
	}
	fn, found := s.setupExec().classLookup(o.cls, name)
	if !found || fn.K != KindRef {
		return undef, false
	}
	if _, isFunc := s.heap.get(fn).(*funcObj); !isFunc {
		return undef, false
	}
	return fn, true
}

// ErrBodyRaised is wrapped by RunModule's error when the module body raised.
var ErrBodyRaised = errors.New("the module body raised")

// RunModule runs the module body to its end on a set-up thread, as
// importing the file would; the objects it makes are shared. A Python
// exception is an error wrapping ErrBodyRaised; so is a fault.
func (s *State) RunModule() error { return s.RunModuleObserved(nil) }

// RunModuleObserved is RunModule calling observe (if not nil) after each
// step.
func (s *State) RunModuleObserved(observe func(*StepInfo)) error {
	p := s.p
	t := len(s.threads)
	s.threads = append(s.threads, thread{busy: true})
	defer func() { s.threads = s.threads[:t] }()
	fr := &frameObj{code: p.Module, globals: s.module, names: s.module, ret: retPush,
		locals: make([]Value, len(p.Module.LocalsPlus)), stack: make([]Value, 0, p.Module.StackSize+1)}
	s.threads[t].frames = []int32{s.heap.alloc(fr, t).X}
	var info StepInfo
	for n := 0; s.threads[t].busy; n++ {
		if n > maxSetupSteps {
			return fmt.Errorf("%s: the module body ran %d steps without finishing", p.Module.Filename, maxSetupSteps)
		}
		p.Step(s, t, &info)
		if observe != nil {
			observe(&info)
		}
		if info.Blocked {
			return fmt.Errorf("%s: the module body blocked (%s)", p.Module.Filename, info.Where())
		}
	}
	for i := range s.heap.slots {
		s.heap.slots[i].owner = 0
	}
	if s.fault != "" {
		return fmt.Errorf("%w: %s", ErrBodyRaised, s.fault)
	}
	if exc := s.threads[t].raised; exc.K != KindUndef {
		return fmt.Errorf("%w: %s", ErrBodyRaised, s.ExcString(exc))
	}
	return nil
}

// maxSetupSteps bounds RunModule (a module body that loops forever).
const maxSetupSteps = 1 << 20

// Freeze ends the set-up: every object made so far is shared, and its
// value at Freeze is kept as the base a state's key will be taken against
// (the key is not written yet: see doc.go).
func (s *State) Freeze() {
	h := &s.heap
	h.gen++
	h.setup = int32(len(h.slots))
	h.base = make([]object, len(h.slots))
	for i := range h.slots {
		h.slots[i].owner = 0
		h.base[i] = h.slots[i].obj
	}
}

// Begin starts a task on idle thread t: fn(*args), run by Step. fn is any
// callable (the swap function, a context manager's bound __enter__ from
// Method, ...).
func (s *State) Begin(t int, fn Value, args ...Value) {
	th := &s.threads[t]
	if th.busy {
		panic("pyvm: Begin on a thread that has a task")
	}
	tmp := append([]Value{fn}, args...)
	fr := &frameObj{native: natCall, ret: retPush, tmp: tmp}
	th.frames = append(th.frames[:0], s.heap.alloc(fr, t).X)
	th.busy = true
	th.result, th.raised = undef, undef
}

// Method is obj.name bound (cm.__enter__, cm.__exit__), made by thread t.
func (s *State) Method(t int, obj Value, name string) (Value, error) {
	x := &exec{p: s.p, s: s, t: t, info: &StepInfo{}}
	nv, ok := s.p.lookupStr(name)
	if !ok {
		return undef, fmt.Errorf("no attribute %s", name)
	}
	a, r := x.getAttr(obj, nv)
	switch r {
	case attrMethod:
		return x.bind(a, obj), nil
	case attrValue:
		return a, nil
	}
	return undef, fmt.Errorf("%s has no method %s", x.repr(obj), name)
}

// Enter begins cm.__enter__() on thread t.
func (s *State) Enter(t int, cm Value) error {
	m, err := s.Method(t, cm, "__enter__")
	if err != nil {
		return err
	}
	s.Begin(t, m)
	return nil
}

// Exit begins cm.__exit__(None, None, None) on thread t, or, with exc set,
// cm.__exit__(type(exc), exc, None): the body raised exc.
func (s *State) Exit(t int, cm, exc Value) error {
	m, err := s.Method(t, cm, "__exit__")
	if err != nil {
		return err
	}
	if exc.K == KindUndef || exc.K == KindNone {
		s.Begin(t, m, None, None, None)
		return nil
	}
	s.Begin(t, m, typeOf(&s.heap, exc), exc, None)
	return nil
}

// NewException makes an instance of the builtin exception type named
// name (KeyboardInterrupt), owned by thread t.
func (s *State) NewException(t int, name string) (Value, error) {
	id, ok := builtinByName[name]
	if name == "swapcheck.KernelError" { // swapcheck's own, which no Python code names
		id, ok = bKernelError, true
	}
	if !ok || builtinTable[id].kind != kindExcType {
		return undef, fmt.Errorf("no builtin exception %s", name)
	}
	return s.heap.alloc(&excObj{typ: builtin(id)}, t), nil
}

// Interrupt raises exc in thread t where it stands: at the instruction its
// last step ran (an eval-breaker check: StepInfo.Check), as CPython raises
// a pending KeyboardInterrupt there. The unwinding is one step, reported
// in info.
//
// Where the frame's exception table is searched depends on the version
// when that instruction was a backward jump that jumped: CPython 3.11 and
// 3.12 check the eval breaker after jumping and search for the
// instruction before the jump's target (ceval's INSTR_OFFSET()-1); 3.13
// checks before jumping and searches for the jump itself. The two differ
// where the jump is in no entry: in 3.13.0 the skipping arm's
// JUMP_BACKWARD of an inlined comprehension, so an interrupt there leaves
// a with around the comprehension without its __exit__, a lock held
// (testdata/cpython/interrupt_unwind.py, TestInterruptUnwindsAsCPython).
func (p *Program) Interrupt(s *State, t int, exc Value, info *StepInfo) {
	acc, locks := info.Accesses[:0], info.Locks[:0]
	*info = StepInfo{Thread: t, Accesses: acc, Locks: locks, Native: "raise " + s.ExcString(exc)}
	th := &s.threads[t]
	if !th.busy {
		panic("pyvm: Interrupt on a thread with no task")
	}
	x := exec{p: p, s: s, t: t, info: info}
	x.load()
	x.exc = exc
	if f := x.f; f.native == 0 && p.Version.Less(V313) && f.pc <= f.lasti && f.pc > 0 && isBackwardJump(f.code.Instrs[f.lasti].Op) {
		x.lookup, x.lookupSet = f.pc-1, true
	}
	x.unwind()
	info.Done = !th.busy
}

// isBackwardJump reports whether op jumps backward (when it jumps).
func isBackwardJump(op Opcode) bool {
	switch op {
	case OpJumpBackward, OpPopJumpBackwardIfFalse, OpPopJumpBackwardIfTrue,
		OpPopJumpBackwardIfNone, OpPopJumpBackwardIfNotNone:
		return true
	}
	return false
}

// ExcString is "Type: message" of exception exc.
func (s *State) ExcString(exc Value) string {
	x := s.setupExec()
	e, ok := s.heap.get(exc).(*excObj)
	if !ok {
		return x.repr(exc)
	}
	msg := x.excMessage(e)
	if msg == "" {
		return x.nameOfType(e.typ)
	}
	return x.nameOfType(e.typ) + ": " + msg
}

// ExcType is the name of exception exc's type ("KeyError").
func (s *State) ExcType(exc Value) string {
	x := s.setupExec()
	if e, ok := s.heap.get(exc).(*excObj); ok {
		return x.nameOfType(e.typ)
	}
	return x.typeName(exc)
}

// Repr is repr(v) as the interpreter writes it.
func (s *State) Repr(v Value) string { return s.setupExec().repr(v) }
