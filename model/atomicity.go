package model

import (
	"fmt"
	"strings"
)

// Atomicity is the CPython build whose atomic steps the model follows.
//
// With the GIL and in free-threaded CPython alike, one dict operation (a
// lookup, a store, dict.update, dict.pop, del d[k]) is one atomic step:
// under the GIL because its C code runs no Python code and so reaches no
// eval-breaker check, without the GIL because it holds the dict's own lock
// (its critical section). They differ on a defaultdict miss, d[k] for a
// missing k with a C factory (threading.Lock, int): under the GIL the
// lookup, __missing__'s factory call and its store are one step; without
// it they are not. How the store then treats a value another thread
// stored meanwhile changed with CPython's fix of gh-142495, which
// made defdict_missing store with PyDict_SetDefaultRef: the fix is in
// 3.13.12 and 3.14.3 (their changelogs list gh-142495; 3.13.11 and 3.14.2
// do not), and gh-148242 reports the change of behaviour between exactly
// those releases.
type Atomicity uint8

const (
	// GIL: CPython with the GIL. Threads switch only between bytecodes;
	// a C-level call, a defaultdict miss included, is one step. Any step
	// may be followed by another thread's: a finer over-approximation of
	// CPython 3.11, which hands the GIL over only at an eval-breaker
	// check or a blocking call (GILBreaker), so a counterexample here may
	// switch where 3.11 cannot (its trace marks such a switch).
	GIL Atomicity = 1 + iota
	// FreeThreaded: free-threaded CPython with gh-142495 fixed (3.13.12
	// and later 3.13t, 3.14.3 and later 3.14t). A defaultdict miss is two
	// steps, the lookup and then __missing__, whose setdefault keeps a
	// value another thread stored in between: two threads that both miss
	// get the same object.
	FreeThreaded
	// FreeThreadedOverwrite: free-threaded CPython before that fix
	// (3.13.0 to 3.13.11, 3.14.0 to 3.14.2). A defaultdict miss is the
	// lookup and then __missing__, whose plain store overwrites a value
	// another thread stored in between: two threads that both miss each
	// get their own object (two locks for one module).
	FreeThreadedOverwrite
	// GILBreaker: CPython 3.11 with the GIL, its steps those of GIL, but
	// another thread runs next only where 3.11 can hand the GIL over:
	// after a step whose thread reached an eval-breaker check (a RESUME,
	// a backward jump, a CALL once its C callee returned, ...; see
	// docs/cpython-switch-points.md and switchpoint.go), blocked (a
	// contended lock, the barrier, the polling loop) or ended.
	GILBreaker
)

// atomicities is the registry of atomicity modes, in the order help,
// tables and tests list them. Everything that lists the modes reads it.
var atomicities = []struct {
	a    Atomicity
	name string
	doc  string
	// noGIL: threads run in parallel, each object behind its own lock.
	noGIL bool
	// splitMiss: a defaultdict miss is the lookup, then __missing__.
	splitMiss bool
	// overwrite: __missing__'s store overwrites a value stored since its
	// lookup (a plain store, not setdefault).
	overwrite bool
	// breakerOnly: after a step, another thread may run only if the step
	// ended at a switch point (switchpoint.go).
	breakerOnly bool
}{
	{GIL, "gil", "CPython with the GIL, switching after any step (finer than 3.11): a C-level call, a defaultdict miss included, is one step", false, false, false, false},
	{FreeThreaded, "free-threaded", "no GIL, gh-142495 fixed (3.13.12+, 3.14.3+): a defaultdict miss is the lookup, then a setdefault that keeps a value another thread stored first", true, true, false, false},
	{FreeThreadedOverwrite, "free-threaded-overwrite", "no GIL, before gh-142495's fix (3.13.0-3.13.11, 3.14.0-3.14.2): a defaultdict miss is the lookup, then a store that overwrites a value another thread stored first", true, true, true, false},
	{GILBreaker, "gil-breaker", "CPython 3.11 with the GIL: steps as gil, but threads switch only at an eval-breaker check, a blocking call or a thread's end", false, false, false, true},
}

// Atomicities are the atomicity modes, in registry order.
func Atomicities() []Atomicity {
	out := make([]Atomicity, len(atomicities))
	for i, r := range atomicities {
		out[i] = r.a
	}
	return out
}

// Valid reports whether a is one of the registered modes.
func (a Atomicity) Valid() bool { return a >= GIL && int(a) <= len(atomicities) }

func (a Atomicity) String() string {
	if !a.Valid() {
		return fmt.Sprintf("Atomicity(%d)", int(a))
	}
	return atomicities[a-1].name
}

// Doc is one line saying what a step is in mode a.
func (a Atomicity) Doc() string {
	if !a.Valid() {
		return ""
	}
	return atomicities[a-1].doc
}

// NoGIL reports whether a is a free-threaded build: threads run in
// parallel and each object has its own lock.
func (a Atomicity) NoGIL() bool { return a.Valid() && atomicities[a-1].noGIL }

func (a Atomicity) splitMiss() bool { return a.Valid() && atomicities[a-1].splitMiss }
func (a Atomicity) overwrite() bool { return a.Valid() && atomicities[a-1].overwrite }

// BreakerOnly reports whether in mode a a thread keeps running after a
// step that ended at no switch point (GILBreaker).
func (a Atomicity) BreakerOnly() bool { return a.Valid() && atomicities[a-1].breakerOnly }

// ParseAtomicity reads a mode's name.
func ParseAtomicity(s string) (Atomicity, error) {
	names := make([]string, len(atomicities))
	for i, r := range atomicities {
		if r.name == s {
			return r.a, nil
		}
		names[i] = r.name
	}
	return 0, fmt.Errorf("unknown atomicity %q (want %s)", s, strings.Join(names, ", "))
}
