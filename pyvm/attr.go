package pyvm

// Attributes: getattr for every kind of object modelled. A method of a
// built-in type comes back unbound with its self (what LOAD_METHOD and
// LOAD_ATTR's method form push), or bound when the caller wants a plain
// attribute.

// attrResult is what an attribute lookup found.
type attrResult uint8

const (
	attrValue    attrResult = 1 + iota // the attribute's value
	attrMethod                         // an unbound method; self is the object
	attrMissing                        // AttributeError raised
	attrFailed                         // another exception or a fault
	attrProperty                       // a property: the value is its getter, to call with the object
)

// builtinMethods are the methods of the built-in types (lookup only).
var builtinMethods = map[builtinID]map[string]builtinID{}

// initMethods fills builtinMethods and attrNames from the table (called
// by builtins.go's init, once the table is filled).
func initMethods() {
	for id := builtinID(1); id < builtinCount; id++ {
		d := &builtinTable[id]
		if d.kind != kindMethod {
			continue
		}
		if builtinMethods[d.owner] == nil {
			builtinMethods[d.owner] = map[string]builtinID{}
		}
		builtinMethods[d.owner][d.name] = id
	}
	for _, ms := range builtinMethods {
		for n := range ms {
			attrNames[n] = struct{}{}
		}
	}
	for _, ms := range moduleMembers {
		for _, m := range ms {
			attrNames[m.name] = struct{}{}
		}
	}
}

// getAttr looks up name on v.
func (x *exec) getAttr(v, name Value) (Value, attrResult) {
	sname := x.p.String(name)
	ty := x.typeOf(v)
	if ty.K == KindBuiltin {
		for t := builtinID(ty.X); t != bNone; t = builtinTable[t].base {
			if t == bRLock {
				t = bLock // an RLock has a Lock's methods (the interpreter's, not a subclass)
			}
			if m, ok := builtinMethods[t][sname]; ok {
				return builtin(m), attrMethod
			}
		}
	}
	switch v.K {
	case KindBuiltin:
		if sname == "__name__" && (builtinTable[v.X].kind == kindType || builtinTable[v.X].kind == kindExcType) {
			return x.newStr(x.nameOfType(v)), attrValue
		}
		return x.builtinAttr(v, sname)
	case KindRef:
		switch o := x.s.heap.get(v).(type) {
		case *dictObj:
			if o.isDefault && sname == "default_factory" {
				x.read(v, LocWhole, undef)
				return o.factory, attrValue
			}
		case *excObj:
			switch sname {
			case "args":
				if o.msg != "" {
					return x.newTuple([]Value{x.newStr(o.msg)}), attrValue
				}
				return x.newTuple(o.args), attrValue
			case "__cause__":
				if o.cause.K == KindUndef {
					return None, attrValue
				}
				return o.cause, attrValue
			}
		case *funcObj:
			switch sname {
			case "__name__":
				return x.mustStr(o.code.Name), attrValue
			case "__qualname__":
				return x.mustStr(o.code.QualName), attrValue
			case "__globals__":
				x.unsupported("the __globals__ of a function the file defines")
				return undef, attrFailed
			}
		case *hostObj:
			if o.fn && sname == "__globals__" {
				x.readConst(v, LocEntry, name)
				return o.globals, attrValue
			}
			if o.fn || o.attrOf.K != KindUndef {
				x.unsupported("attribute " + sname + " of the embedder's " + o.label)
				return undef, attrFailed
			}
			return x.s.heap.alloc(&hostObj{label: o.label + "." + sname, tag: o.tag, attrOf: v}, x.t), attrValue
		case *moduleObj:
			return x.moduleAttr(v, o, name)
		case *opaqueObj:
			return x.s.heap.alloc(&opaqueObj{name: o.name + "." + sname}, x.t), attrValue
		case *classObj:
			if a, found := x.classLookup(v, name); found {
				if d, ok := x.asProperty(a); ok {
					switch d.kind {
					case bStaticmethod:
						return d.fget, attrValue
					case bClassmethod:
						return x.bind(d.fget, v), attrValue
					}
				}
				return a, attrValue
			}
			if sname == "__name__" {
				return o.name, attrValue
			}
		case *instanceObj:
			return x.instanceAttr(v, o, name)
		case *threadObj:
			return x.threadAttr(v, o, name)
		case *genObj:
			if sname == "gi_running" {
				x.read(v, LocWhole, undef)
				return Bool(o.state == genRunning), attrValue
			}
		case *cmObj:
			if sname == "gen" {
				return o.gen, attrValue
			}
		}
	}
	if _, known := attrNames[sname]; !known || v.K == KindRef {
		// an attribute CPython's object has but the interpreter does not
		// model would be taken for missing: say so instead
		if x.cpythonHas(ty, sname) {
			x.unsupported("attribute " + sname + " of " + x.typeName(v))
			return undef, attrFailed
		}
	}
	x.raise(bAttributeError, "'"+x.typeName(v)+"' object has no attribute '"+sname+"'")
	return undef, attrMissing
}

// cpythonHas reports whether CPython's type has an attribute the
// interpreter does not model (its dunder methods, the methods of dict and
// list it leaves out): a lookup of one is a fault, not an AttributeError.
func (x *exec) cpythonHas(ty Value, name string) bool {
	if len(name) > 4 && name[:2] == "__" && name[len(name)-2:] == "__" {
		return true
	}
	if ty.K != KindBuiltin {
		return false
	}
	for t := builtinID(ty.X); t != bNone; t = builtinTable[t].base {
		for _, n := range unmodelledMethods[t] {
			if n == name {
				return true
			}
		}
	}
	return false
}

// unmodelledMethods are methods of the built-in types that the
// interpreter does not run.
var unmodelledMethods = map[builtinID][]string{
	bDict:  {"fromkeys", "popitem"},
	bList:  {"clear", "copy", "count", "index", "insert", "remove", "reverse", "sort"},
	bTuple: {"count", "index"},
	bStr: {"capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find", "format",
		"format_map", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier",
		"islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower",
		"lstrip", "maketrans", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex",
		"rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase",
		"title", "translate", "upper", "zfill"},
	bInt:  {"as_integer_ratio", "bit_count", "bit_length", "conjugate", "denominator", "from_bytes", "imag", "numerator", "real", "to_bytes", "is_integer"},
	bLock: {"acquire_lock", "release_lock", "locked_lock"},
}

// attrNames are the attribute names the interpreter models on some type
// (the refusal pass accepts these).
var attrNames = map[string]struct{}{
	"default_factory": {}, "args": {}, "__cause__": {}, "__name__": {}, "__qualname__": {},
	"__globals__": {}, "gi_running": {}, "gen": {},
}

// builtinAttr is an attribute of a builtin (a stand-in module's member).
func (x *exec) builtinAttr(v Value, name string) (Value, attrResult) {
	id := builtinID(v.X)
	if builtinTable[id].kind == kindModule {
		for _, m := range moduleMembers[id] {
			if m.name == name {
				if m.id == bAllocateLock && x.p.Version.AtLeast(V313) {
					return builtin(bLock), attrValue // 3.13: threading.Lock is _thread.lock itself
				}
				return builtin(m.id), attrValue
			}
		}
		x.unsupported(builtinTable[id].name + "." + name)
		return undef, attrFailed
	}
	x.unsupported("attribute " + name + " of " + builtinTable[id].name)
	return undef, attrFailed
}

// moduleAttr is an attribute of an imported module: one bound in it (by
// an import of a submodule, or by the embedder), a submodule in
// sys.modules, or, for a stand-in, a new stand-in.
func (x *exec) moduleAttr(v Value, m *moduleObj, name Value) (Value, attrResult) {
	if a, found, _ := x.dictGet(m.attrs, name); found {
		return a, attrValue
	}
	full := x.p.String(m.name) + "." + x.p.String(name)
	if fv, ok := x.p.lookupStr(full); ok {
		if sub, found := x.sysModule(fv); found {
			return sub, attrValue
		}
	}
	if m.host {
		return x.s.heap.alloc(&hostObj{label: full, tag: m.tag, attrOf: v}, x.t), attrValue
	}
	return x.s.heap.alloc(&opaqueObj{name: full}, x.t), attrValue
}

// classLookup finds name in class c's namespace or its bases'.
func (x *exec) classLookup(c, name Value) (Value, bool) {
	cl, ok := x.s.heap.get(c).(*classObj)
	if !ok {
		return undef, false
	}
	if v, found, _ := x.dictGet(cl.ns, name); found {
		return v, true
	}
	for _, b := range cl.bases {
		if v, found := x.classLookup(b, name); found {
			return v, true
		}
	}
	return undef, false
}

// instanceAttr is an attribute of an instance of a Python class: its own
// dict, then the class (a function as a method, a property as its
// getter).
func (x *exec) instanceAttr(v Value, o *instanceObj, name Value) (Value, attrResult) {
	if _, found := x.classLookup(o.cls, x.mustStr("__getattribute__")); found {
		x.unsupported("a class with its own __getattribute__")
		return undef, attrFailed
	}
	if a, found := x.classLookup(o.cls, name); found {
		if p, ok := x.asProperty(a); ok && p.kind == bProperty {
			return p.fget, attrProperty
		}
	}
	if a, found, _ := x.dictGet(o.dict, name); found {
		return a, attrValue
	}
	if a, found := x.classLookup(o.cls, name); found {
		if a.K == KindRef {
			switch d := x.s.heap.get(a).(type) {
			case *funcObj:
				return a, attrMethod
			case *propertyObj:
				if d.kind == bStaticmethod {
					return d.fget, attrValue
				}
				return x.bind(d.fget, o.cls), attrValue
			}
		}
		return a, attrValue
	}
	x.raise(bAttributeError, "'"+x.typeName(v)+"' object has no attribute '"+x.p.String(name)+"'")
	return undef, attrMissing
}

func (x *exec) asProperty(v Value) (*propertyObj, bool) {
	if v.K != KindRef {
		return nil, false
	}
	p, ok := x.s.heap.get(v).(*propertyObj)
	return p, ok
}

// bind makes a bound method of an unbound one.
func (x *exec) bind(fn, self Value) Value {
	return x.s.heap.alloc(&methodObj{fn: fn, self: self}, x.t)
}

// pushAttr pushes getattr(obj, name) as LOAD_ATTR does: a method bound,
// a property's value (its getter's frame pushed, handing back its value).
func (x *exec) pushAttr(obj Value, a Value, r attrResult) {
	switch r {
	case attrValue:
		x.f.push(a)
	case attrMethod:
		x.f.push(x.bind(a, obj))
	case attrProperty:
		if _, st := x.invoke(a, []Value{obj}, nil, siteQuiet); st == statusDone {
			x.unsupported("a property whose getter is not a Python function")
		}
	}
}
