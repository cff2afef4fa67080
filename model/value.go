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
)

var excNames = [...]string{0: "no exception", KeyError: "KeyError", AttributeError: "AttributeError",
	RuntimeError: "RuntimeError", KernelError: "KernelError"}

func (e Exc) String() string { return nameIn(excNames[:], "Exc", e) }

// Atomicity is the CPython build whose atomic steps the model follows.
type Atomicity uint8

const (
	// GIL: threads switch only between bytecodes; one C-level call (a dict
	// method, a defaultdict miss with a C factory) is one step.
	GIL Atomicity = 1 + iota
	// FreeThreaded: no GIL (3.13t, 3.14t before 3.13.12 and 3.14.3): single
	// dict operations stay atomic, but a defaultdict miss is a lookup, then
	// a factory call and a store, as separate steps.
	FreeThreaded
)

var atomicityNames = [...]string{GIL: "gil", FreeThreaded: "free-threaded"}

func (a Atomicity) String() string { return nameIn(atomicityNames[:], "Atomicity", a) }

// nameIn is names[v] where it is a name, else typ(v): the String of an
// enum type typ.
func nameIn[E ~int32 | ~uint8](names []string, typ string, v E) string {
	if i := int64(v); i >= 0 && i < int64(len(names)) && names[i] != "" {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// ParseAtomicity reads "gil" or "free-threaded".
func ParseAtomicity(s string) (Atomicity, error) {
	switch s {
	case "gil":
		return GIL, nil
	case "free-threaded":
		return FreeThreaded, nil
	}
	return 0, fmt.Errorf("unknown atomicity %q (want gil or free-threaded)", s)
}
