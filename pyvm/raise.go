package pyvm

// Raising: Python exceptions are heap objects (excObj) raised by setting
// x.exc; an operation the interpreter does not model is not a Python
// exception but a fault that stops the thread (State.Fault), so that an
// embedder never takes a modelling gap for the program's behaviour.

// faultMark is the x.exc of a fault: it stops every caller as an
// exception does, and Step then ends the thread instead of unwinding.
var faultMark = Value{K: KindNull, X: -1}

// newExc makes exception typ(msg), msg being the interpreter's own text.
func (x *exec) newExc(typ builtinID, msg string) Value {
	return x.s.heap.alloc(&excObj{typ: builtin(typ), msg: msg}, x.t)
}

// newExcArgs makes exception typ(*args).
func (x *exec) newExcArgs(typ Value, args ...Value) Value {
	return x.s.heap.alloc(&excObj{typ: typ, args: append([]Value(nil), args...)}, x.t)
}

// raise raises typ(msg).
func (x *exec) raise(typ builtinID, msg string) { x.exc = x.newExc(typ, msg) }

// raiseKeyError raises KeyError(key).
func (x *exec) raiseKeyError(key Value) { x.exc = x.newExcArgs(builtin(bKeyError), key) }

// newStopIteration is StopIteration(v), or StopIteration() for None.
func (x *exec) newStopIteration(v Value) Value {
	if v.K == KindNone {
		return x.newExcArgs(builtin(bStopIteration))
	}
	return x.newExcArgs(builtin(bStopIteration), v)
}

// unsupported stops the thread: the step needs something the interpreter
// does not model.
func (x *exec) unsupported(what string) {
	if x.s.fault == "" {
		where := "native code"
		if x.f != nil && x.f.native == 0 {
			where = x.f.code.Where(int(x.f.lasti)) + " " + x.f.code.Instrs[x.f.lasti].OpName
		} else if x.info.Native != "" {
			where = x.info.Native
		}
		x.s.fault = where + ": " + what + " is not supported (python " + x.p.Version.String() + ")"
	}
	x.exc = faultMark
}

// standInUsed raises StandInError: a stand-in for a module the file
// imports (numpy, numba's own) was used.
func (x *exec) standInUsed(name, how string) {
	x.raise(bStandInError, name+" is a stand-in for an imported module swapcheck does not load: its "+how+" cannot be used")
}

// excMessage is str(exc) as CPython gives it for the exceptions modelled.
func (x *exec) excMessage(e *excObj) string {
	if e.msg != "" {
		return e.msg
	}
	switch len(e.args) {
	case 0:
		return ""
	case 1:
		if e.typ.isBuiltin(bKeyError) {
			return x.repr(e.args[0])
		}
		return x.str(e.args[0])
	}
	return x.tupleRepr(e.args)
}
