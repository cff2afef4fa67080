package model

import "fmt"

// Value is a Python object as the model tells them apart. The zero value is
// invalid: it means "no value" (a missing key).
type Value int32

const (
	// None is Python's None: the fake passed by a device call once the
	// kernel context has been reset.
	None Value = 1 + iota
	// Real is the real numba.cuda module, which has no attribute "local"
	// under the simulator.
	Real
	// Other is any other object a module global can hold (a function).
	Other
	// Dispatch is proposed's _dispatcher: a stand-in for numba.cuda whose
	// every attribute is the reading thread's own launch's fake, or the
	// real module's for a thread outside any launch (World.dispatch).
	// Only a protocol that says Protocol.Dispatches stores it.
	Dispatch
	fakeBase Value = 16
)

// Fake is the FakeCUDAModule of launch l (launches count from 1).
func Fake(l int) Value { return fakeBase + Value(l) }

// IsFake reports whether v is some launch's fake module.
func (v Value) IsFake() bool { return v > fakeBase }

// Launch is the launch whose fake v is (0 when v is not a fake).
func (v Value) Launch() int {
	if !v.IsFake() {
		return 0
	}
	return int(v - fakeBase)
}

// String is the canonical rendering used in traces.
func (v Value) String() string {
	switch {
	case v == 0:
		return "<missing>"
	case v == None:
		return "None"
	case v == Real:
		return "numba.cuda"
	case v == Other:
		return "a function"
	case v == Dispatch:
		return "_dispatcher"
	case v.IsFake():
		return fmt.Sprintf("fake#%d", v.Launch())
	}
	return fmt.Sprintf("Value(%d)", int32(v))
}

// Exc is a Python exception type. The zero value means no exception.
type Exc int32

const (
	KeyError Exc = 1 + iota
	AttributeError
	RuntimeError
	// KernelError is an exception raised by the kernel's own code (a
	// scenario's "raise" op), not by the swap machinery.
	KernelError
	// TypeError: global-lock's exit unpacks _swap_state.get(gid), which is
	// None when the module's state is missing ("cannot unpack non-iterable
	// NoneType object").
	TypeError
	// AssertionError: _push_kernel_context's assert found another
	// host's launch running ("concurrent simulated kernel not supported").
	AssertionError
	// KeyboardInterrupt: SIGINT's exception, raised in the host (main)
	// thread at an eval-breaker check (interrupt.go).
	KeyboardInterrupt
	// GeneratorExit: what closing a generator an interrupt left suspended
	// throws in at its yield, once the interrupt's exception dies.
	GeneratorExit
)

var excNames = [...]string{0: "no exception", KeyError: "KeyError", AttributeError: "AttributeError",
	RuntimeError: "RuntimeError", KernelError: "KernelError", TypeError: "TypeError",
	AssertionError: "AssertionError", KeyboardInterrupt: "KeyboardInterrupt", GeneratorExit: "GeneratorExit"}

func (e Exc) String() string { return nameIn(excNames[:], "Exc", e) }

// nameIn is names[v] where it is a name, else typ(v): the String of an
// enum type typ.
func nameIn[E ~int32 | ~uint8](names []string, typ string, v E) string {
	if i := int64(v); i >= 0 && i < int64(len(names)) && names[i] != "" {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}
