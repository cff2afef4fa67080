package pyvm

// eachRef calls f with every Value of o that points into the heap (a
// reference or an id), in a fixed order.
func eachRef(o object, f func(Value)) {
	each := func(vs []Value) {
		for _, v := range vs {
			if v.refersTo() {
				f(v)
			}
		}
	}
	one := func(vs ...Value) { each(vs) }
	switch o := o.(type) {
	case *dictObj:
		one(o.factory)
		for _, e := range o.entries {
			if !e.dead {
				one(e.key, e.val)
			}
		}
	case *seqObj:
		each(o.items)
	case *cellObj:
		one(o.v)
	case *funcObj:
		one(o.globals, o.closure, o.kwDefaults)
		each(o.defaults)
	case *genObj:
		one(o.frame)
	case *cmFactoryObj:
		one(o.fn)
	case *cmObj:
		one(o.gen, o.fn, o.args)
	case *iterObj:
		one(o.seq)
	case *viewObj:
		one(o.dict)
	case *methodObj:
		one(o.fn, o.self)
	case *excObj:
		one(o.typ, o.cause)
		each(o.args)
	case *moduleObj:
		one(o.attrs)
	case *hostObj:
		one(o.globals, o.attrOf)
	case *classObj:
		each(o.bases)
		one(o.ns)
	case *instanceObj:
		one(o.cls, o.dict)
	case *propertyObj:
		one(o.fget)
	case *frameObj:
		one(o.globals, o.names, o.gen, o.fn, o.excInfo, o.kwnames)
		each(o.locals)
		each(o.stack)
		each(o.tmp)
	case *threadObj:
		one(o.attrs)
	case *condObj:
		one(o.lock)
		each(o.waiters)
	case *lockObj, *rangeObj, *opaqueObj, *strObj:
	default:
		panic("pyvm: eachRef of an unknown object")
	}
}
