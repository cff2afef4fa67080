package pyvm

import "fmt"

// Program is a loaded file: its code objects for one CPython version, the
// strings and constants they use, and the options the run follows. It
// does not change once the embedder has finished setting up (Str, the
// State's New* calls); every State and every thread share it, so Step
// may run on several goroutines at once, each on its own State.
type Program struct {
	Version Version
	Module  *Code   // the module body
	Codes   []*Code // every code object, Module first, then depth-first through constants
	Options Options

	strs     []string
	strIndex map[string]int32 // lookup only: nothing ranges over it
	consts   []constEntry
	floats   []floatConst
	ops      *opTable

	// writableGlobals are the module globals that code running after the
	// set-up may store or delete (STORE_GLOBAL, DELETE_GLOBAL outside the
	// module body): a read of any other module global can never change,
	// so it is reported as Const (see Access).
	writableGlobals []int32
	// runnable are the code objects the refusal pass checked: what can run.
	runnable []*Code
	// notifies: some code that can run calls notify or notify_all, so a
	// Condition's waiter can be woken (threads.go)
	notifies bool
}

// constEntry is a tuple or frozenset constant, its items as Values.
type constEntry struct {
	items  []Value
	frozen bool // a frozenset
}

// floatConst is a float constant: its value and CPython's repr of it.
// Floats are carried, compared and tested for truth (a timeout passed to
// Condition.wait); arithmetic on them, and a float as a dict key (whose
// hash equals an equal int's), are not modelled and stop the thread
// (unsupported).
type floatConst struct {
	f    float64
	repr string
}

// Options are the choices a run makes that CPython's build or the
// embedder fixes.
type Options struct {
	// Target is the function the embedder will call (the refusal pass
	// checks it and what it reaches); "" checks the module body alone.
	Target string
	// ModuleName is the module's __name__ ("kernelapi" if empty), Package
	// its __package__ (what a relative import is resolved against).
	ModuleName, Package string
	// Miss is how a defaultdict miss with a C factory runs.
	Miss MissMode
}

// MissMode is how a defaultdict miss (d[k] for an absent k) runs when the
// factory is a C callable (int, threading.Lock).
type MissMode uint8

const (
	// MissAtomic: one step, as under the GIL (the default).
	MissAtomic MissMode = iota
	// MissSplitSetdefault: a free-threaded build with gh-142495's fix
	// (3.13.12, 3.14.3): the lookup and the factory's call are one step,
	// the store of __missing__ another, and the store keeps a value
	// another thread stored meanwhile (setdefault).
	MissSplitSetdefault
	// MissSplitOverwrite: a free-threaded build before the fix: as
	// MissSplitSetdefault, but the store overwrites, so two threads that
	// both missed each get their own value.
	MissSplitOverwrite
)

// Str returns the interned string s, adding it to the program's strings.
// Only the embedder's set-up calls it (a module's global names): it
// changes the Program, so it must not run concurrently with Step.
func (p *Program) Str(s string) Value {
	if i, ok := p.strIndex[s]; ok {
		return Value{K: KindStr, X: i}
	}
	p.strs = append(p.strs, s)
	i := int32(len(p.strs) - 1)
	p.strIndex[s] = i
	return Value{K: KindStr, X: i}
}

// lookupStr returns s's index if interned.
func (p *Program) lookupStr(s string) (Value, bool) {
	i, ok := p.strIndex[s]
	return Value{K: KindStr, X: i}, ok
}

// String returns a KindStr Value's string.
func (p *Program) String(v Value) string { return p.strs[v.X] }

// Load numbers the code objects of module, interns their strings and
// constants for version v, and runs the refusal pass (refuse.go): an
// opcode, builtin, constant or global the interpreter does not support,
// in code that can run, is an error naming file:line, the opcode and the
// version.
func Load(module *Code, v Version, opts Options) (*Program, error) {
	if !v.Supported() {
		return nil, fmt.Errorf("python %s is not supported (supported: %s)", v, supportedList())
	}
	ops := opTables[v]
	p := &Program{Version: v, Module: module, Options: opts, strIndex: map[string]int32{}, ops: ops}
	if p.Options.ModuleName == "" {
		p.Options.ModuleName = "kernelapi"
	}
	var walk func(c *Code)
	walk = func(c *Code) {
		c.id = len(p.Codes)
		p.Codes = append(p.Codes, c)
		for i := range c.Consts {
			if c.Consts[i].Kind == ConstCode {
				walk(c.Consts[i].Code)
			}
		}
	}
	walk(module)
	for _, c := range p.Codes {
		p.internCode(c)
	}
	for _, c := range p.Codes {
		if c.namesFrom == nil {
			p.names(c)
		}
	}
	if err := p.refuse(); err != nil {
		return nil, err
	}
	return p, nil
}

func supportedList() string {
	s := ""
	for i, v := range Versions {
		if i > 0 {
			s += ", "
		}
		s += v.String()
	}
	return s
}

// internCode interns every string c's instructions can make a Value of:
// names, variable names, string constants, and the module names an import
// can look up.
func (p *Program) internCode(c *Code) {
	for _, group := range [][]string{c.Names, c.VarNames, c.CellVars, c.FreeVars} {
		for _, s := range group {
			p.Str(s)
		}
	}
	p.Str(c.Name)
	p.Str(c.QualName)
	c.vals = make([]Value, len(c.Consts))
	for i := range c.Consts {
		if constSupported(&c.Consts[i]) {
			c.vals[i] = p.constValue(&c.Consts[i])
		}
	}
	var imported string
	for i := range c.Instrs {
		in := &c.Instrs[i]
		switch in.Op {
		case OpImportName:
			imported = p.importTarget(in.ArgName, c, i)
			for j := 0; j <= len(imported); j++ {
				if j == len(imported) || imported[j] == '.' {
					p.Str(imported[:j])
				}
			}
		case OpImportFrom:
			if imported != "" {
				p.Str(imported + "." + in.ArgName)
			}
		}
	}
}

// importTarget is the absolute module name IMPORT_NAME at instruction i
// imports: name itself, or, for a relative import (a level above 0,
// pushed by the LOAD_CONST two instructions before), name resolved
// against the package.
func (p *Program) importTarget(name string, c *Code, i int) string {
	level := 0
	if i >= 2 && c.Instrs[i-2].Op == OpLoadConst {
		if k := c.Consts[c.Instrs[i-2].Arg]; k.Kind == ConstInt {
			level = int(k.Int)
		}
	}
	if level == 0 {
		return name
	}
	pkg := p.Options.Package
	for l := 1; l < level && pkg != ""; l++ {
		if j := lastDot(pkg); j >= 0 {
			pkg = pkg[:j]
		} else {
			pkg = ""
		}
	}
	if pkg == "" {
		pkg = "<no package>"
	}
	if name == "" {
		return pkg
	}
	return pkg + "." + name
}

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

// constSupported reports whether the interpreter has a Value for k: not
// bytes, an Ellipsis, a complex, or an int beyond 32 bits.
func constSupported(k *Const) bool {
	switch k.Kind {
	case ConstInt:
		return k.Int == int64(int32(k.Int))
	case ConstOther:
		return false
	case ConstTuple, ConstFrozenSet:
		for i := range k.Items {
			if !constSupported(&k.Items[i]) {
				return false
			}
		}
	}
	return true
}

// constValue is the Value of constant k, adding a tuple's items to the
// pool; Load calls it once per constant, so a run never changes the pool.
func (p *Program) constValue(k *Const) Value {
	switch k.Kind {
	case ConstNone:
		return None
	case ConstBool:
		return Bool(k.Int != 0)
	case ConstInt:
		return Int(int32(k.Int))
	case ConstStr:
		return p.Str(k.Str)
	case ConstCode:
		return Value{K: KindCode, X: int32(k.Code.id)}
	case ConstFloat:
		p.floats = append(p.floats, floatConst{f: k.Float, repr: k.Str})
		return Value{K: KindFloat, X: int32(len(p.floats) - 1)}
	case ConstTuple, ConstFrozenSet:
		items := make([]Value, len(k.Items))
		for i := range k.Items {
			items[i] = p.constValue(&k.Items[i])
		}
		p.consts = append(p.consts, constEntry{items: items, frozen: k.Kind == ConstFrozenSet})
		return Value{K: KindConst, X: int32(len(p.consts) - 1)}
	}
	panic("pyvm: constValue of an unsupported constant (the refusal pass lets none run)")
}

// Uses reports whether some code that can run names name as an
// attribute, a method or an imported member (an embedder makes what the
// file reads only when it reads it: threading.current_thread's objects).
func (p *Program) Uses(name string) bool {
	for _, c := range p.runnable {
		for _, in := range c.Instrs {
			switch in.Op {
			case OpLoadAttr, OpLoadMethod, OpImportFrom:
				if in.ArgName == name {
					return true
				}
			}
		}
	}
	return false
}

// MayLoop reports whether some code that can run jumps backward, other
// than to a FOR_ITER, from an instruction its target can reach again: a
// while loop (or a generator's), whose thread can come back to a state
// it was in. A for loop cannot (its iterator moves on or ends), nor
// recursion (the stack grows), so without such a jump an embedder's
// state graph has no cycle through the file's code. A backward jump its
// target cannot reach is no loop: 3.12's with statement jumps back from
// its handler (an exception __exit__ swallowed) to the code after the
// with, which the handler's range does not cover
// (TestMayLoopOnlyOnCycles).
func (p *Program) MayLoop() bool {
	for _, c := range p.runnable {
		for i, in := range c.Instrs {
			if in.Target >= 0 && in.Target <= i && c.Instrs[in.Target].Op != OpForIter && c.reaches(in.Target, i) {
				return true
			}
		}
	}
	return false
}

// reaches reports whether instruction to can run after instruction from
// (or is it): along fall-throughs, jumps and the exception table's
// handlers.
func (c *Code) reaches(from, to int) bool {
	seen := make([]bool, len(c.Instrs))
	stack := []int{from}
	seen[from] = true
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i == to {
			return true
		}
		for _, n := range c.next(i, nil) {
			if n >= 0 && n < len(c.Instrs) && !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	return false
}
