package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The simulator's other shared state, as a kernel uses it: arrays passed
// as kernel arguments, cuda.atomic's operations on their elements
// (FakeCUDAAtomic), and cuda.shared.array (FakeCUDAShared). Everything is
// numba-cuda's numba_cuda/numba/cuda/simulator/kernelapi.py at HEAD, whose
// FakeCUDAAtomic and FakeCUDAShared are numba 0.56.4's
// numba/cuda/simulator/kernelapi.py but for cas, which 0.56.4 lacks, and
// compare_and_swap's lock (0.56.4: caslock; HEAD: compare_and_swaplock).

// Array is a kernel argument: a one-dimensional int64 array of Size
// elements, zero when the host launches the kernel, which the simulator
// hands each thread as a FakeWithinKernelCUDAArray around a FakeCUDAArray
// (kernel.py's fake_arg): both index through Python methods
// (__getitem__, __setitem__), so each element read or write is a call.
type Array struct {
	Name string
	Size int
}

// AtomicOp is one of FakeCUDAAtomic's methods.
type AtomicOp uint8

// The operations, in kernelapi.py's order.
const (
	AtomicAdd AtomicOp = 1 + iota
	AtomicSub
	AtomicAnd
	AtomicOr
	AtomicXor
	AtomicInc
	AtomicDec
	AtomicExch
	AtomicMax
	AtomicMin
	AtomicNanmax
	AtomicNanmin
	AtomicCompareAndSwap
	AtomicCas
	numAtomicOps
)

// AtomicInfo is what kernelapi.py says of one operation.
type AtomicInfo struct {
	// Name is the method's name (and_, or_ as Python spells them).
	Name string
	// Lock is the module-level threading.Lock the method holds (max and
	// nanmax share maxlock, min and nanmin minlock).
	Lock string
	// Line is the def's line in numba-cuda HEAD's kernelapi.py, Line056
	// in numba 0.56.4's (0 where 0.56.4 has no such method).
	Line, Line056 int
	// HasIndex: the call takes an index (compare_and_swap does not: it
	// works on element 0); HasCmp: it takes the value to compare with
	// (compare_and_swap, cas).
	HasIndex, HasCmp bool
}

// Atomics is every operation's row, indexed by AtomicOp.
var Atomics = [numAtomicOps]AtomicInfo{
	AtomicAdd:            {Name: "add", Lock: "addlock", Line: 154, Line056: 138, HasIndex: true},
	AtomicSub:            {Name: "sub", Lock: "sublock", Line: 160, Line056: 144, HasIndex: true},
	AtomicAnd:            {Name: "and_", Lock: "andlock", Line: 166, Line056: 150, HasIndex: true},
	AtomicOr:             {Name: "or_", Lock: "orlock", Line: 172, Line056: 156, HasIndex: true},
	AtomicXor:            {Name: "xor", Lock: "xorlock", Line: 178, Line056: 162, HasIndex: true},
	AtomicInc:            {Name: "inc", Lock: "inclock", Line: 184, Line056: 168, HasIndex: true},
	AtomicDec:            {Name: "dec", Lock: "declock", Line: 193, Line056: 177, HasIndex: true},
	AtomicExch:           {Name: "exch", Lock: "exchlock", Line: 202, Line056: 186, HasIndex: true},
	AtomicMax:            {Name: "max", Lock: "maxlock", Line: 208, Line056: 192, HasIndex: true},
	AtomicMin:            {Name: "min", Lock: "minlock", Line: 214, Line056: 198, HasIndex: true},
	AtomicNanmax:         {Name: "nanmax", Lock: "maxlock", Line: 220, Line056: 204, HasIndex: true},
	AtomicNanmin:         {Name: "nanmin", Lock: "minlock", Line: 226, Line056: 210, HasIndex: true},
	AtomicCompareAndSwap: {Name: "compare_and_swap", Lock: "compare_and_swaplock", Line: 232, Line056: 216, HasCmp: true},
	AtomicCas:            {Name: "cas", Lock: "caslock", Line: 240, HasIndex: true, HasCmp: true},
}

// Info is o's row of Atomics.
func (o AtomicOp) Info() AtomicInfo { return Atomics[o] }

// String is the method's name.
func (o AtomicOp) String() string {
	if o < AtomicAdd || o >= numAtomicOps {
		return fmt.Sprintf("AtomicOp(%d)", uint8(o))
	}
	return Atomics[o].Name
}

// ParseAtomicOp reads an operation's name: the method's (and_, or_), or
// and and or as CUDA spells them.
func ParseAtomicOp(s string) (AtomicOp, error) {
	switch s {
	case "and":
		s = "and_"
	case "or":
		s = "or_"
	}
	for o := AtomicAdd; o < numAtomicOps; o++ {
		if Atomics[o].Name == s {
			return o, nil
		}
	}
	var names []string
	for o := AtomicAdd; o < numAtomicOps; o++ {
		names = append(names, Atomics[o].Name)
	}
	return 0, fmt.Errorf("unknown atomic operation %s (FakeCUDAAtomic has %s)", pyName(s), strings.Join(names, ", "))
}

// Apply is the operation's sequential meaning: the element's new value
// given its value old, the call's val and cmp (compare_and_swap, cas),
// and whether the method stores at all (a compare that fails does not).
func (o AtomicOp) Apply(old, val, cmp int) (int, bool) {
	switch o {
	case AtomicAdd:
		return old + val, true
	case AtomicSub:
		return old - val, true
	case AtomicAnd:
		return old & val, true
	case AtomicOr:
		return old | val, true
	case AtomicXor:
		return old ^ val, true
	case AtomicInc:
		if old >= val {
			return 0, true
		}
		return old + 1, true
	case AtomicDec:
		if old == 0 || old > val {
			return val, true
		}
		return old - 1, true
	case AtomicExch:
		return val, true
	case AtomicMax, AtomicNanmax:
		return max(old, val), true
	case AtomicMin, AtomicNanmin:
		return min(old, val), true
	case AtomicCompareAndSwap, AtomicCas:
		return val, old == cmp
	}
	panic(fmt.Sprintf("scenario: unknown atomic operation %d", o))
}

// Rereads reports whether the method reads the element a second time
// after old = array[index], given old and val: "array[index] += val" (a
// BINARY_SUBSCR before the STORE_SUBSCR) in add, sub, and_, or_, xor; inc's
// and dec's else arms ("array[index] += 1"); nanmax's and nanmin's
// np.nanmax([array[index], val]).
func (o AtomicOp) Rereads(old, val int) bool {
	switch o {
	case AtomicAdd, AtomicSub, AtomicAnd, AtomicOr, AtomicXor, AtomicNanmax, AtomicNanmin:
		return true
	case AtomicInc:
		return old < val
	case AtomicDec:
		return old != 0 && old <= val
	}
	return false
}

// Fixes are the simulator fixes a scenario runs with (its fix line):
// kernelapi.py patched, as docs/simulator-fixes.md shows.
type Fixes uint8

const (
	// FixAtomicsOneLock: every FakeCUDAAtomic method holds one lock.
	FixAtomicsOneLock Fixes = 1 << iota
	// FixSharedSetdefault: FakeCUDAShared.array stores a missing
	// allocation with self._allocations.setdefault(caller, np.empty(...)).
	FixSharedSetdefault
)

var fixNames = []struct {
	fix  Fixes
	name string
}{{FixAtomicsOneLock, "atomics-one-lock"}, {FixSharedSetdefault, "shared-setdefault"}}

// FixNames lists the fixes' names.
func FixNames() []string {
	var out []string
	for _, f := range fixNames {
		out = append(out, f.name)
	}
	return out
}

// String is the fixes comma-separated, as the fix line and -fix spell them.
func (f Fixes) String() string {
	var out []string
	for _, n := range fixNames {
		if f&n.fix != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, ",")
}

// ParseFixes reads fixes comma-separated ("" is none).
func ParseFixes(s string) (Fixes, error) {
	var f Fixes
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		i := slices.IndexFunc(FixNames(), func(n string) bool { return n == w })
		if i < 0 {
			return 0, fmt.Errorf("unknown fix %q (want %s)", w, strings.Join(FixNames(), ", "))
		}
		f |= fixNames[i].fix
	}
	return f, nil
}

// Limits of the shared state: array sizes, and the values an element can
// reach (the model keeps an element in an int16 slot).
const (
	MaxArrays    = 8
	MaxArraySize = 64
	MaxValue     = 1000
	// MaxMagnitude bounds the sum, over every atomic operation all threads
	// of all launches make, of its value's and compare's magnitudes plus
	// one: no element can get further from zero.
	MaxMagnitude = 16000
)

// parseArray reads "array NAME SIZE".
func parseArray(sc *Scenario, rest string) error {
	f := strings.Fields(rest)
	if len(f) != 2 {
		return fmt.Errorf("want array NAME SIZE (a kernel argument: an int64 array of SIZE zeros)")
	}
	size, err := strconv.Atoi(f[1])
	if err != nil || size < 1 || size > MaxArraySize {
		got := f[1]
		if strings.ContainsFunc(got, func(r rune) bool { return !unicode.IsPrint(r) }) {
			got = strconv.Quote(got) // one clear line, never a control character
		}
		return fmt.Errorf("array %s: the size must be 1..%d, got %s", pyName(f[0]), MaxArraySize, got)
	}
	if !isIdent(f[0]) {
		return fmt.Errorf("%q is not a Python name", f[0])
	}
	if sc.arrayIndex(f[0]) >= 0 {
		return fmt.Errorf("array %s given twice", pyName(f[0]))
	}
	if len(sc.Arrays) >= MaxArrays {
		return fmt.Errorf("at most %d arrays", MaxArrays)
	}
	sc.Arrays = append(sc.Arrays, Array{Name: f[0], Size: size})
	return nil
}

func (sc *Scenario) arrayIndex(name string) int {
	return slices.IndexFunc(sc.Arrays, func(a Array) bool { return a.Name == name })
}

// parseAtomic reads "atomic.OP ARRAY INDEX VALUE" ("atomic.cas ARRAY
// INDEX OLD VALUE", "atomic.compare_and_swap ARRAY OLD VALUE").
func parseAtomic(sc *Scenario, f []string) (Stmt, error) {
	op, err := ParseAtomicOp(strings.TrimPrefix(f[0], "atomic."))
	if err != nil {
		return Stmt{}, err
	}
	info := op.Info()
	want := "atomic." + info.Name + " ARRAY"
	if info.HasIndex {
		want += " INDEX"
	}
	if info.HasCmp {
		want += " OLD"
	}
	want += " VALUE"
	if len(f) != len(strings.Fields(want)) {
		return Stmt{}, fmt.Errorf("want %s, got %q", want, strings.Join(f, " "))
	}
	st := Stmt{Kind: OpAtomic, Atomic: op, Array: sc.arrayIndex(f[1])}
	if st.Array < 0 {
		return Stmt{}, fmt.Errorf("%s: no array %s (declare it: array %s SIZE)", f[0], pyName(f[1]), pyName(f[1]))
	}
	nums := f[2:]
	ints := make([]int, len(nums))
	for i, s := range nums {
		if ints[i], err = strconv.Atoi(s); err != nil {
			return Stmt{}, fmt.Errorf("%s: %q is not a whole number", f[0], s)
		}
	}
	if info.HasIndex {
		st.Index, ints = ints[0], ints[1:]
	}
	if info.HasCmp {
		st.Cmp, ints = ints[0], ints[1:]
	}
	st.Value = ints[0]
	return st, sc.checkAtomic("", st)
}

// checkAtomic checks an atomic statement's array, index and values.
func (sc *Scenario) checkAtomic(where string, s Stmt) error {
	if where != "" {
		where += ": "
	}
	if s.Atomic < AtomicAdd || s.Atomic >= numAtomicOps {
		return fmt.Errorf("%sunknown atomic operation %d", where, s.Atomic)
	}
	if s.Array < 0 || s.Array >= len(sc.Arrays) {
		return fmt.Errorf("%satomic.%s on array #%d, which does not exist", where, s.Atomic, s.Array)
	}
	a := sc.Arrays[s.Array]
	if s.Index < 0 || s.Index >= a.Size {
		return fmt.Errorf("%satomic.%s: index %d is outside array %s of %d elements", where, s.Atomic, s.Index, a.Name, a.Size)
	}
	if !s.Atomic.Info().HasIndex && s.Index != 0 {
		return fmt.Errorf("%satomic.%s works on element 0, not %d", where, s.Atomic, s.Index)
	}
	for _, v := range []int{s.Value, s.Cmp} {
		if v < -MaxValue || v > MaxValue {
			return fmt.Errorf("%satomic.%s: %d is outside -%d..%d", where, s.Atomic, v, MaxValue, MaxValue)
		}
	}
	return nil
}

// parseShared reads "shared.array NAME SIZE".
func parseShared(f []string) (Stmt, error) {
	if len(f) != 3 {
		return Stmt{}, fmt.Errorf("want shared.array NAME SIZE, got %q", strings.Join(f, " "))
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return Stmt{}, fmt.Errorf("shared.array %s: the size %q is not a whole number", pyName(f[1]), f[2])
	}
	if !isIdent(f[1]) {
		return Stmt{}, fmt.Errorf("%q is not a Python name", f[1])
	}
	st := Stmt{Kind: OpShared, Target: f[1], Size: size}
	return st, checkShared("", st)
}

// parseElement reads "store NAME INDEX VALUE" and "load NAME INDEX" on
// the shared array a shared.array statement before it assigned to NAME,
// in its block or one around it (known: a name assigned in a branch's
// arm is not known after it), or else on the kernel's array NAME.
func parseElement(sc *Scenario, f []string, shared map[string]Stmt, known func(string) bool) (Stmt, error) {
	want := map[string]string{"store": "store NAME INDEX VALUE", "load": "load NAME INDEX"}[f[0]]
	if len(f) != len(strings.Fields(want)) {
		return Stmt{}, fmt.Errorf("want %s, got %q", want, strings.Join(f, " "))
	}
	var st Stmt
	if alloc, ok := shared[f[1]]; ok && known(f[1]) {
		st = Stmt{Kind: OpLoad, Target: f[1], Site: alloc.Site, Size: alloc.Size}
	} else if a := sc.arrayIndex(f[1]); a >= 0 {
		st = Stmt{Kind: OpLoad, Target: f[1], Site: -1, Array: a, Size: sc.Arrays[a].Size}
	} else {
		n := pyName(f[1])
		return Stmt{}, fmt.Errorf("%s %s: no shared array %s before it (allocate one: shared.array %s SIZE) and no kernel array %s (array %s SIZE)", f[0], n, n, n, n, n)
	}
	if f[0] == "store" {
		st.Kind = OpStore
	}
	for i, s := range f[2:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			return Stmt{}, fmt.Errorf("%s %s: %q is not a whole number", f[0], pyName(f[1]), s)
		}
		if i == 0 {
			st.Index = n
		} else {
			st.Value = n
		}
	}
	return st, checkElement("", st)
}

// checkElement checks a store's or a load's index (Size is its shared
// array's) and value.
func checkElement(where string, s Stmt) error {
	if where != "" {
		where += ": "
	}
	verb := map[OpKind]string{OpStore: "store", OpLoad: "load"}[s.Kind]
	which := "the shared array"
	if s.Site < 0 {
		which = "the kernel's array"
	}
	if s.Index < 0 || s.Index >= s.Size {
		return fmt.Errorf("%s%s %s: index %d is outside %s of %d elements", where, verb, s.Target, s.Index, which, s.Size)
	}
	if s.Value < -MaxValue || s.Value > MaxValue {
		return fmt.Errorf("%s%s %s: %d is outside -%d..%d", where, verb, s.Target, s.Value, MaxValue, MaxValue)
	}
	if !isIdent(s.Target) {
		return fmt.Errorf("%s%s on %q, not a Python name", where, verb, s.Target)
	}
	return nil
}

// elementText is a store or a load as Python writes it.
func elementText(s Stmt) string {
	if s.Kind == OpStore {
		return fmt.Sprintf("%s[%d] = %d", s.Target, s.Index, s.Value)
	}
	return fmt.Sprintf("x = %s[%d]", s.Target, s.Index)
}

// checkShared checks a shared.array statement's size: 0 asks for the
// launch's dynamic shared memory, one buffer that needs no allocation
// (kernelapi.py:120-125), which the model does not hold.
func checkShared(where string, s Stmt) error {
	if where != "" {
		where += ": "
	}
	if s.Size == 0 {
		return fmt.Errorf("%sshared.array %s of size 0 is the launch's dynamic shared memory (one buffer every call returns, no allocation to race on): not modelled; give a size 1..%d", where, s.Target, MaxArraySize)
	}
	if s.Size < 1 || s.Size > MaxArraySize {
		return fmt.Errorf("%sshared.array %s: the size must be 1..%d, got %d", where, s.Target, MaxArraySize, s.Size)
	}
	if !isIdent(s.Target) {
		return fmt.Errorf("%sshared.array stores to %q, not a Python name", where, s.Target)
	}
	return nil
}

// validateMemory checks where the shared-state statements stand and how
// far the elements can go: only in the kernel's body (a device function
// has no arrays to take, and a shared.array's call site must be one
// line), with one host (a second host runs the kernel inline, as a
// device function, which the model does not give the arrays), and the
// sites numbered in the order they are written.
func (sc *Scenario) validateMemory() error {
	for _, f := range sc.Functions {
		if hasMemory(f.Body) {
			return fmt.Errorf("device function %s: atomics and shared.array are modelled in the kernel's body only", f.Name)
		}
	}
	if !hasMemory(sc.Kernel) {
		return nil
	}
	if sc.NumHosts() > 1 {
		return fmt.Errorf("atomics and shared.array are modelled with one host (a second host runs the kernel inline, as a device function, without the launch's arrays)")
	}
	site, magnitude := 0, 0
	var sizes []int // each site's size, in site order
	var walk func(body []Stmt, times int) error
	walk = func(body []Stmt, times int) error {
		for _, s := range body {
			switch s.Kind {
			case OpShared:
				if s.Site != site {
					return fmt.Errorf("the kernel's shared.array %s is call site %d, want %d (sites are numbered in the order they are written)", s.Target, s.Site, site)
				}
				site++
				sizes = append(sizes, s.Size)
			case OpStore, OpLoad:
				if s.Site < 0 {
					if s.Array < 0 || s.Array >= len(sc.Arrays) || sc.Arrays[s.Array].Size != s.Size || sc.Arrays[s.Array].Name != s.Target {
						return fmt.Errorf("the kernel's %s names array #%d of size %d, which the kernel does not take", sc.StmtString(0, s), s.Array, s.Size)
					}
					if s.Kind == OpStore {
						magnitude += times * (max(s.Value, -s.Value) + 1)
					}
					continue
				}
				if s.Site >= len(sizes) || sizes[s.Site] != s.Size {
					return fmt.Errorf("the kernel's %s on %s names call site %d of size %d, which no shared.array before it is", sc.StmtString(0, s), s.Target, s.Site, s.Size)
				}
			case OpAtomic:
				abs := func(x int) int { return max(x, -x) }
				magnitude += times * (abs(s.Value) + abs(s.Cmp) + 1)
			case OpRepeat:
				if err := walk(s.Body, times*s.Times); err != nil {
					return err
				}
			case OpIf:
				if err := walk(s.Then, times); err != nil {
					return err
				}
				if err := walk(s.Else, times); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(sc.Kernel, 1); err != nil {
		return err
	}
	if total := magnitude * sc.Threads * sc.Blocks * sc.Launches; total > MaxMagnitude {
		return fmt.Errorf("the atomics' values add up to %d over all threads, at most %d (an element must fit the model's int16 slot)", total, MaxMagnitude)
	}
	return nil
}

// hasMemory reports whether body has an atomic or a shared.array.
func hasMemory(body []Stmt) bool {
	for _, s := range body {
		if s.Kind == OpAtomic || s.Kind == OpShared || s.Kind == OpStore || s.Kind == OpLoad || hasMemory(s.Then) || hasMemory(s.Else) || hasMemory(s.Body) {
			return true
		}
	}
	return false
}

// HasMemory reports whether the kernel uses the simulator's other shared
// state (an atomic or a shared.array).
func (sc *Scenario) HasMemory() bool { return hasMemory(sc.Kernel) }

// SharedSites counts the kernel's shared.array call sites.
func (sc *Scenario) SharedSites() int { return len(sc.SharedAllocs()) }

// SharedAllocs are the kernel's shared.array statements, in site order.
func (sc *Scenario) SharedAllocs() []Stmt {
	var sites []Stmt
	var walk func(body []Stmt)
	walk = func(body []Stmt) {
		for _, s := range body {
			if s.Kind == OpShared {
				sites = append(sites, s)
			}
			walk(s.Then)
			walk(s.Else)
			walk(s.Body)
		}
	}
	walk(sc.Kernel)
	return sites
}

// atomicArgs are an atomic statement's arguments after the array:
// INDEX (where the method takes one), OLD (compare_and_swap, cas), VALUE.
func atomicArgs(s Stmt) []string {
	var out []string
	info := s.Atomic.Info()
	if info.HasIndex {
		out = append(out, strconv.Itoa(s.Index))
	}
	if info.HasCmp {
		out = append(out, strconv.Itoa(s.Cmp))
	}
	return append(out, strconv.Itoa(s.Value))
}

// AtomicCall is an atomic statement as the kernel calls it, without the
// module global: atomic.add(a, 0, 1).
func (sc *Scenario) AtomicCall(s Stmt) string {
	args := append([]string{sc.Arrays[s.Array].Name}, atomicArgs(s)...)
	return fmt.Sprintf("atomic.%s(%s)", s.Atomic, strings.Join(args, ", "))
}

// atomicText is an atomic statement as Python writes it through the
// module global g: cuda.atomic.add(a, 0, 1).
func (sc *Scenario) atomicText(g string, s Stmt) string { return g + "." + sc.AtomicCall(s) }

// atomicString is an atomic statement as the scenario file spells it.
func (sc *Scenario) atomicString(s Stmt) string {
	w := []string{"atomic." + s.Atomic.String(), sc.Arrays[s.Array].Name}
	return strings.Join(append(w, atomicArgs(s)...), " ")
}

// sharedText is a shared.array statement as Python writes it through the
// module global g.
func sharedText(g string, s Stmt) string {
	return fmt.Sprintf("%s = %s.shared.array(%d, numba.int64)", s.Target, g, s.Size)
}

// memoryLines is the array and fix lines of the scenario file.
func (sc *Scenario) memoryLines() string {
	var b strings.Builder
	if sc.Fixes != 0 {
		fmt.Fprintf(&b, "fix %s\n", sc.Fixes)
	}
	for _, a := range sc.Arrays {
		fmt.Fprintf(&b, "array %s %d\n", a.Name, a.Size)
	}
	return b.String()
}

// KernelParams are the kernel's parameters: its arrays.
func (sc *Scenario) KernelParams() []string {
	var out []string
	for _, a := range sc.Arrays {
		out = append(out, a.Name)
	}
	return out
}
