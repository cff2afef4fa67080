package pyvm

// Imports. sys.modules is a dict in the heap (State.modules), keyed by
// full module name; no Python code can reach it, so an entry, once there,
// never changes: reading one is a Const access. collections, threading and
// contextlib resolve to the interpreter's stand-ins; the embedder binds
// its own modules (SetModule: the real numba.cuda); any other module is a
// stand-in made on first import (moduleObj), whose attributes are
// stand-ins that fail when used.

// sysModule looks name up in sys.modules.
func (x *exec) sysModule(name Value) (Value, bool) {
	d := x.s.heap.get(x.s.modules).(*dictObj)
	i, _ := x.dictFind(d, name)
	if i < 0 {
		x.read(x.s.modules, LocEntry, name)
		return undef, false
	}
	x.readConst(x.s.modules, LocEntry, name)
	return d.entries[i].val, true
}

// importModule returns sys.modules[name], making a stand-in (and its
// parents) on first import.
func (x *exec) importModule(name string) Value {
	nv := x.mustStr(name)
	if v, found := x.sysModule(nv); found {
		return v
	}
	if i := lastDot(name); i >= 0 {
		x.importModule(name[:i])
	}
	var v Value
	if id, ok := standInModules[name]; ok {
		v = builtin(id)
	} else {
		v = x.s.heap.alloc(&moduleObj{name: nv, attrs: x.s.heap.alloc(&dictObj{}, x.t)}, x.t)
	}
	x.dictSet(x.s.modules, nv, v)
	return v
}

// opImportName is IMPORT_NAME: level and fromlist popped, the module
// pushed: with a fromlist the named module itself, else its top package
// (import a.b binds a).
func opImportName(x *exec) {
	fromlist := x.f.pop()
	x.f.pop() // level: resolved at Load (importTarget)
	name := x.p.importTarget(x.in.ArgName, x.f.code, int(x.f.lasti))
	m := x.importModule(name)
	if x.exc.K != KindUndef {
		return
	}
	if nonEmpty, _ := x.truth(fromlist); !nonEmpty && lastDot(name) >= 0 {
		top := name
		for i := 0; i < len(name); i++ {
			if name[i] == '.' {
				top = name[:i]
				break
			}
		}
		m = x.importModule(top)
	}
	x.f.push(m)
}

// opImportFrom is IMPORT_FROM: the module stays, its attribute is pushed
// (or sys.modules' submodule of that name).
func opImportFrom(x *exec) {
	m := x.f.top()
	name := x.nameArg()
	if m.K == KindBuiltin {
		a, r := x.getAttr(m, name)
		if r == attrValue {
			x.f.push(a)
		}
		return
	}
	a, r := x.getAttr(m, name)
	if r == attrValue {
		x.f.push(a)
		return
	}
	if r == attrMissing {
		x.raise(bImportError, "cannot import name '"+x.p.String(name)+"' from '"+x.repr(m)+"'")
	}
}
