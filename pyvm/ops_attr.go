package pyvm

// LOAD_ATTR, LOAD_METHOD and STORE_ATTR, per version.

// opLoadAttr311 is 3.11's LOAD_ATTR: the attribute replaces the object.
func opLoadAttr311(x *exec) {
	obj := x.f.pop()
	a, r := x.getAttr(obj, x.nameArg())
	x.pushAttr(obj, a, r)
}

// opLoadMethod is 3.11's LOAD_METHOD: [method, self] for a method, else
// [NULL, attribute].
func opLoadMethod(x *exec) {
	obj := x.f.pop()
	a, r := x.getAttr(obj, x.nameArg())
	switch r {
	case attrMethod:
		x.f.push(a)
		x.f.push(obj)
	case attrValue, attrProperty:
		x.f.push(null)
		x.pushAttr(obj, a, r)
	}
}

// opLoadAttr312 is 3.12's LOAD_ATTR: with its low bit set it is 3.11's
// LOAD_METHOD, else 3.11's LOAD_ATTR.
func opLoadAttr312(x *exec) {
	if x.in.Arg&1 != 0 {
		opLoadMethod(x)
		return
	}
	opLoadAttr311(x)
}

// opLoadAttr313 is 3.13's: the method form pushes [method, self] or
// [attribute, NULL].
func opLoadAttr313(x *exec) {
	if x.in.Arg&1 == 0 {
		opLoadAttr311(x)
		return
	}
	obj := x.f.pop()
	a, r := x.getAttr(obj, x.nameArg())
	switch r {
	case attrMethod:
		x.f.push(a)
		x.f.push(obj)
	case attrValue:
		x.f.push(a)
		x.f.push(null)
	case attrProperty:
		x.unsupported("a property read as a method's callee")
	}
}

// opStoreAttr: obj.name = v, for an instance of a Python class (its dict)
// or a class; CPython's built-in objects refuse it.
func opStoreAttr(x *exec) {
	obj := x.f.pop()
	v := x.f.pop()
	name := x.nameArg()
	if obj.K == KindRef {
		switch o := x.s.heap.get(obj).(type) {
		case *instanceObj:
			x.dictSet(o.dict, name, v)
			return
		case *opaqueObj:
			x.standInUsed(o.name, "attribute "+x.p.String(name))
			return
		case *moduleObj, *classObj, *funcObj:
			x.unsupported("storing attribute " + x.p.String(name) + " of a " + x.typeName(obj))
			return
		}
	}
	x.raise(bAttributeError, "'"+x.typeName(obj)+"' object has no attribute '"+x.p.String(name)+"'")
}
