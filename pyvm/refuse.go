package pyvm

import (
	"fmt"
	"sort"
)

// The refusal pass: before anything runs, every code object that can run
// (the module body, its class bodies, the target function, the code
// objects nested in it, and the module's functions it calls, transitively)
// is checked for opcodes, constants, builtins, globals and attributes the
// interpreter does not model. The first one found is the error, naming
// file:line, what is not supported and the Python version. What a static
// pass cannot see (a method called on an object of a type not modelled)
// is a fault at run time (State.Fault), never a guess.

// RefusalError is the refusal pass's error.
type RefusalError struct {
	Where   string // file:line
	What    string // "opcode MATCH_CLASS", "builtin print", ...
	Version Version
}

func (e *RefusalError) Error() string {
	return fmt.Sprintf("%s: %s is not supported (python %s)", e.Where, e.What, e.Version)
}

// NoFunctionError says the module defines no function of the target's
// name at top level.
type NoFunctionError struct{ File, Name string }

func (e *NoFunctionError) Error() string {
	return fmt.Sprintf("%s: no top-level function %s", e.File, e.Name)
}

// cpythonBuiltins are the names of CPython's builtins module the
// interpreter does not model: a use is refused as "builtin NAME" rather
// than "name not defined".
var cpythonBuiltins = []string{
	"abs", "aiter", "anext", "ascii", "bin", "breakpoint", "bytearray", "bytes",
	"callable", "chr", "compile", "complex", "copyright", "credits", "delattr", "dir", "divmod",
	"enumerate", "eval", "exec", "exit", "filter", "float", "format", "globals", "hasattr", "hash",
	"help", "hex", "input", "issubclass", "license", "locals", "map", "max", "memoryview", "min",
	"oct", "open", "ord", "pow", "print", "quit", "repr", "reversed", "round", "set", "setattr",
	"slice", "sorted", "sum", "super", "vars", "zip", "__import__", "Ellipsis", "NotImplemented",
	"ArithmeticError", "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning",
	"ChildProcessError", "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError",
	"ConnectionResetError", "DeprecationWarning", "EOFError", "EncodingWarning", "EnvironmentError",
	"ExceptionGroup", "BaseExceptionGroup", "FileExistsError", "FileNotFoundError",
	"FloatingPointError", "FutureWarning", "IOError", "ImportWarning", "IndentationError",
	"InterruptedError", "IsADirectoryError", "ModuleNotFoundError", "NotADirectoryError",
	"OSError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
	"RecursionError", "ReferenceError", "ResourceWarning", "RuntimeWarning", "StopAsyncIteration",
	"SyntaxError", "SyntaxWarning", "SystemError", "TabError", "TimeoutError", "UnicodeDecodeError",
	"UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning",
	"Warning", "PythonFinalizationError", "_IncompleteInputError",
}

// moduleDunders are the names a module's globals hold before its body
// runs (the loader sets them).
var moduleDunders = []string{"__name__", "__doc__", "__package__", "__file__", "__builtins__", "__spec__", "__loader__"}

// wellKnown are strings the interpreter makes Values of at run time.
var wellKnown = []string{"__init__", "__enter__", "__exit__", "__getattribute__", "__name__", "__qualname__",
	"__module__", "__doc__", "__package__", "__file__", "__globals__"}

// refuse runs the refusal pass and computes writableGlobals.
func (p *Program) refuse() error {
	for _, s := range wellKnown {
		p.Str(s)
	}
	for _, s := range moduleDunders {
		p.Str(s)
	}
	m := p.Module
	r := &refusal{p: p, defined: map[string]bool{}, funcs: map[string]*Code{}, opaque: map[string]bool{}, standIn: map[string]builtinID{}}
	for _, s := range moduleDunders {
		r.defined[s] = true
	}
	r.scanModule(m)
	for _, c := range p.Codes {
		if c == m {
			continue
		}
		for _, in := range c.Instrs {
			if in.Op == OpStoreGlobal || in.Op == OpDeleteGlobal {
				r.defined[in.ArgName] = true
				p.writableGlobals = append(p.writableGlobals, p.Str(in.ArgName).X)
			}
		}
	}
	sort.Slice(p.writableGlobals, func(i, j int) bool { return p.writableGlobals[i] < p.writableGlobals[j] })
	// what runs: the module body and its class bodies, then the target
	// and what it reaches
	var todo []*Code
	seen := map[*Code]bool{}
	add := func(c *Code) {
		if !seen[c] {
			seen[c] = true
			todo = append(todo, c)
		}
	}
	add(m)
	for i := 0; i < len(todo); i++ {
		for _, k := range todo[i].Consts {
			if k.Kind == ConstCode && k.Code.Flags&(FlagOptimized|FlagNewLocals) == 0 {
				add(k.Code) // a class body
			}
		}
	}
	setup := len(todo)
	for _, body := range todo[1:setup] {
		// a class's own __getattribute__ runs on every attribute read
		// of its instances, the embedder's uses of cuda included
		// (State.Getattribute); its other methods run only when called
		for _, k := range body.Consts {
			if k.Kind == ConstCode && k.Code.Name == "__getattribute__" {
				add(k.Code)
			}
		}
	}
	if name := p.Options.Target; name != "" {
		fn, ok := r.funcs[name]
		if !ok {
			return &NoFunctionError{File: m.Filename, Name: name}
		}
		add(fn)
	}
	for i := setup; i < len(todo); i++ {
		c := todo[i]
		for _, k := range c.Consts {
			if k.Kind == ConstCode {
				add(k.Code)
			}
		}
		for _, in := range c.Instrs {
			if in.Op == OpLoadGlobal || in.Op == OpLoadName {
				if fn, ok := r.funcs[in.ArgName]; ok {
					add(fn)
				}
			}
		}
	}
	for _, c := range todo {
		if err := r.check(c); err != nil {
			return err
		}
	}
	p.runnable = todo
	p.notifies = p.Uses("notify") || p.Uses("notify_all")
	return nil
}

// globalWritable reports whether module global name can be stored or
// deleted after the set-up.
func (p *Program) globalWritable(name Value) bool {
	i := sort.Search(len(p.writableGlobals), func(i int) bool { return p.writableGlobals[i] >= name.X })
	return i < len(p.writableGlobals) && p.writableGlobals[i] == name.X
}

// refusal is the pass's knowledge of the module: the names its body binds,
// the functions it defines (by name), and the names bound to imported
// modules (stand-ins the interpreter makes, or its own stand-in modules).
type refusal struct {
	p       *Program
	defined map[string]bool
	funcs   map[string]*Code
	opaque  map[string]bool
	standIn map[string]builtinID
	attrs   map[string]bool // attribute names the file's classes and instances may have
}

// scanModule reads the module body (and its class bodies) for the names
// they bind.
func (r *refusal) scanModule(m *Code) {
	r.attrs = map[string]bool{}
	var scan func(c *Code, module bool)
	scan = func(c *Code, module bool) {
		var lastCode *Code
		var importing string
		for _, in := range c.Instrs {
			switch in.Op {
			case OpLoadConst:
				if k := c.Consts[in.Arg]; k.Kind == ConstCode {
					lastCode = k.Code
					if k.Code.Flags&(FlagOptimized|FlagNewLocals) == 0 {
						scan(k.Code, false)
					}
				}
			case OpImportName:
				importing = r.p.importTarget(in.ArgName, c, indexOf(c, in))
			case OpImportFrom:
			case OpStoreName, OpStoreGlobal:
				if module {
					r.defined[in.ArgName] = true
					if lastCode != nil && lastCode.Name == in.ArgName && lastCode.Flags&FlagOptimized != 0 {
						r.funcs[in.ArgName] = lastCode
					}
					if importing != "" {
						if id, ok := standInModules[importing]; ok {
							r.standIn[in.ArgName] = id
						} else {
							r.opaque[in.ArgName] = true
						}
					}
				} else {
					r.attrs[in.ArgName] = true
				}
				lastCode, importing = nil, ""
			case OpStoreAttr:
				r.attrs[in.ArgName] = true
			case OpPopTop:
				importing = ""
			}
		}
	}
	scan(m, true)
	for _, c := range r.p.Codes {
		for _, in := range c.Instrs {
			if in.Op == OpStoreAttr {
				r.attrs[in.ArgName] = true
			}
		}
	}
}

func indexOf(c *Code, in Instr) int {
	for i := range c.Instrs {
		if c.Instrs[i].Offset == in.Offset {
			return i
		}
	}
	return -1
}

// check refuses c's first instruction the interpreter cannot run.
func (r *refusal) check(c *Code) error {
	p := r.p
	refuse := func(i int, what string) error {
		return &RefusalError{Where: c.Where(i), What: what, Version: p.Version}
	}
	if c.Flags&(FlagCoroutine|FlagAsyncGen) != 0 {
		return refuse(-1, "async code ("+c.QualName+")")
	}
	locals := map[string]bool{}
	for _, in := range c.Instrs {
		if in.Op == OpStoreName {
			locals[in.ArgName] = true
		}
	}
	for i, in := range c.Instrs {
		if !p.supports(in.Op) {
			return refuse(i, "opcode "+in.OpName)
		}
		switch in.Op {
		case OpLoadConst, OpReturnConst:
			if c.vals[in.Arg].K == KindUndef {
				k := c.Consts[in.Arg]
				return refuse(i, "constant "+k.Str+" ("+k.Type+")")
			}
		case OpLoadGlobal, OpLoadName:
			name := in.ArgName
			if r.defined[name] || locals[name] && in.Op == OpLoadName {
				continue
			}
			if _, ok := builtinByName[name]; ok {
				continue
			}
			for _, b := range cpythonBuiltins {
				if b == name {
					return refuse(i, "builtin "+name)
				}
			}
			return refuse(i, "name "+name+" (not defined in "+c.Filename+" nor a builtin)")
		case OpLoadAttr, OpLoadMethod, OpStoreAttr:
			if err := r.checkAttr(c, i); err != nil {
				return err
			}
		case OpImportFrom:
			if id, ok := standInModules[r.importedBefore(c, i)]; ok && !isMember(id, in.ArgName) {
				return refuse(i, builtinTable[id].name+"."+in.ArgName)
			}
		case OpImportName:
			if p.importTarget(in.ArgName, c, i) == "<no package>" {
				return refuse(i, "a relative import with no package")
			}
		case OpCallIntrinsic1:
			switch in.ArgRepr {
			case "INTRINSIC_STOPITERATION_ERROR", "INTRINSIC_LIST_TO_TUPLE", "INTRINSIC_UNARY_POSITIVE":
			default:
				return refuse(i, "CALL_INTRINSIC_1 "+in.ArgRepr)
			}
		}
	}
	return nil
}

// importedBefore is the module the IMPORT_NAME before instruction i (an
// IMPORT_FROM) imports.
func (r *refusal) importedBefore(c *Code, i int) string {
	for j := i - 1; j >= 0; j-- {
		if c.Instrs[j].Op == OpImportName {
			return r.p.importTarget(c.Instrs[j].ArgName, c, j)
		}
	}
	return ""
}

func isMember(id builtinID, name string) bool {
	for _, m := range moduleMembers[id] {
		if m.name == name {
			return true
		}
	}
	return false
}

// checkAttr refuses an attribute the interpreter models on no type: unless
// its object is a name bound to a stand-in of an imported module (any
// attribute: a stand-in), a stand-in module of the interpreter's own (its
// members), or the name is one the file's classes bind.
func (r *refusal) checkAttr(c *Code, i int) error {
	in := c.Instrs[i]
	name := in.ArgName
	if i > 0 {
		prev := c.Instrs[i-1]
		if prev.Op == OpLoadGlobal || prev.Op == OpLoadName {
			if r.opaque[prev.ArgName] {
				return nil
			}
			if id, ok := r.standIn[prev.ArgName]; ok {
				if !isMember(id, name) {
					return &RefusalError{Where: c.Where(i), What: builtinTable[id].name + "." + name, Version: r.p.Version}
				}
				return nil
			}
		}
	}
	if _, ok := attrNames[name]; ok || r.attrs[name] {
		return nil
	}
	return &RefusalError{Where: c.Where(i), What: "attribute " + name, Version: r.p.Version}
}
