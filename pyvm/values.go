package pyvm

import "strconv"

// What Python asks of any value: its type, its truth, equality, and its
// repr for messages. Each follows CPython's rule for the types modelled.

// typeOf is v's type: a builtin type, or a classObj for an instance.
func (x *exec) typeOf(v Value) Value { return typeOf(&x.s.heap, v) }

func typeOf(h *heap, v Value) Value {
	switch v.K {
	case KindNone:
		return builtin(bNoneType)
	case KindBool:
		return builtin(bBool)
	case KindInt, KindID, KindLasti:
		return builtin(bInt)
	case KindStr:
		return builtin(bStr)
	case KindFloat:
		return builtin(bFloat)
	case KindConst:
		return builtin(bTuple) // frozensets are checked by callers that care
	case KindCode:
		return builtin(bCode)
	case KindBuiltin:
		switch builtinTable[v.X].kind {
		case kindType, kindExcType:
			return builtin(bType)
		case kindModule:
			return builtin(bModule)
		}
		return builtin(bBuiltinFunction)
	case KindRef:
		switch o := h.get(v).(type) {
		case *strObj:
			return builtin(bStr)
		case *dictObj:
			if o.isDefault {
				return builtin(bDefaultdict)
			}
			return builtin(bDict)
		case *seqObj:
			if o.tuple {
				return builtin(bTuple)
			}
			return builtin(bList)
		case *cellObj:
			return builtin(bCell)
		case *funcObj, *cmFactoryObj:
			return builtin(bFunction)
		case *genObj:
			return builtin(bGenerator)
		case *cmObj:
			return builtin(bGeneratorCM)
		case *lockObj:
			if o.reentrant {
				return builtin(bRLock)
			}
			return builtin(bLock)
		case *iterObj:
			switch o.kind {
			case iterDictKeys:
				return builtin(bDictKeyIterator)
			case iterDictValues:
				return builtin(bDictValueIterator)
			case iterDictItems:
				return builtin(bDictItemIterator)
			case iterRange:
				return builtin(bRangeIterator)
			case iterSeq:
				if s, ok := h.get(o.seq).(*seqObj); ok && !s.tuple {
					return builtin(bListIterator)
				}
			}
			return builtin(bTupleIterator)
		case *viewObj:
			switch o.kind {
			case iterDictKeys:
				return builtin(bDictKeys)
			case iterDictValues:
				return builtin(bDictValues)
			}
			return builtin(bDictItems)
		case *rangeObj:
			return builtin(bRange)
		case *methodObj:
			if o.fn.K == KindBuiltin {
				return builtin(bBuiltinFunction)
			}
			return builtin(bMethod)
		case *excObj:
			return o.typ
		case *moduleObj:
			return builtin(bModule)
		case *opaqueObj:
			return builtin(bStandIn)
		case *hostObj:
			if o.fn {
				return builtin(bFunction)
			}
			return builtin(bHost)
		case *classObj:
			return builtin(bType)
		case *instanceObj:
			return o.cls
		case *propertyObj:
			return builtin(bProperty)
		case *frameObj:
			return builtin(bFrame)
		case *threadObj:
			return builtin(bThread)
		case *condObj:
			return builtin(bCondition)
		}
	}
	return builtin(bObject)
}

// typeName is the __name__ of v's type, as CPython's messages show it
// ("NoneType", "dict", "collections.defaultdict" shows as "defaultdict").
func (x *exec) typeName(v Value) string { return x.nameOfType(x.typeOf(v)) }

func (x *exec) nameOfType(t Value) string {
	if t.K == KindBuiltin {
		n := builtinTable[t.X].name
		if i := lastDot(n); i >= 0 {
			return n[i+1:]
		}
		return n
	}
	if c, ok := x.s.heap.get(t).(*classObj); ok {
		return x.p.String(c.name)
	}
	return "object"
}

// isInstance reports whether v is an instance of builtin type t (or of a
// subtype).
func (x *exec) isInstance(v Value, t builtinID) bool {
	ty := x.typeOf(v)
	if ty.K == KindBuiltin {
		return subtype(builtinID(ty.X), t)
	}
	return x.classIsSubtype(ty, builtin(t))
}

// classIsSubtype reports whether type c (a class or builtin type) is sup or
// derives from it.
func (x *exec) classIsSubtype(c, sup Value) bool {
	if c == sup {
		return true
	}
	if c.K == KindBuiltin {
		return sup.K == KindBuiltin && subtype(builtinID(c.X), builtinID(sup.X))
	}
	cl, ok := x.s.heap.get(c).(*classObj)
	if !ok {
		return false
	}
	if len(cl.bases) == 0 {
		return sup.isBuiltin(bObject)
	}
	for _, b := range cl.bases {
		if x.classIsSubtype(b, sup) {
			return true
		}
	}
	return false
}

// truth is bool(v); ok is false when v's truth is not modelled (then
// x.exc is set).
func (x *exec) truth(v Value) (bool, bool) {
	switch v.K {
	case KindNone:
		return false, true
	case KindBool, KindInt:
		return v.X != 0, true
	case KindStr:
		return x.p.String(v) != "", true
	case KindFloat:
		return x.p.floats[v.X].f != 0, true
	case KindConst:
		return len(x.p.consts[v.X].items) > 0, true
	case KindID, KindBuiltin, KindCode:
		return true, true
	case KindRef:
		switch o := x.s.heap.get(v).(type) {
		case *strObj:
			return o.s != "", true
		case *dictObj:
			x.read(v, LocShape, undef)
			return o.used > 0, true
		case *seqObj:
			if !o.tuple {
				x.read(v, LocWhole, undef)
			}
			return len(o.items) > 0, true
		case *rangeObj:
			return rangeLen(o) > 0, true
		case *opaqueObj:
			x.standInUsed(o.name, "truth value")
			return false, false
		case *viewObj:
			d := x.s.heap.get(o.dict).(*dictObj)
			x.read(o.dict, LocShape, undef)
			return d.used > 0, true
		}
		return true, true
	}
	x.unsupported("the truth of a " + x.typeName(v))
	return false, false
}

// equal is v == w for the types modelled: numbers by value (True == 1),
// strings by content, tuples item by item, everything else by identity
// (dict and list equality compare contents: modelled for dicts and lists
// of modelled values).
func (x *exec) equal(v, w Value) (bool, bool) {
	if num(v) && num(w) {
		return v.X == w.X, true
	}
	if v.K == KindFloat || w.K == KindFloat {
		a, aok := x.floatOf(v)
		b, bok := x.floatOf(w)
		return aok && bok && a == b, true
	}
	if v.K == KindStr && w.K == KindStr {
		return v.X == w.X, true
	}
	if a, ok := x.strOf(v); ok {
		b, ok := x.strOf(w)
		return ok && a == b, true
	}
	if v.K == KindID || w.K == KindID {
		return v == w, true
	}
	if vi, ok := x.tupleItems(v); ok {
		if wi, ok := x.tupleItems(w); ok {
			return x.equalItems(vi, wi)
		}
		return false, true
	}
	if v.K == KindRef && w.K == KindRef {
		if v == w {
			return true, true
		}
		switch a := x.s.heap.get(v).(type) {
		case *seqObj:
			if b, ok := x.s.heap.get(w).(*seqObj); ok && !a.tuple && !b.tuple {
				x.read(v, LocWhole, undef)
				x.read(w, LocWhole, undef)
				return x.equalItems(a.items, b.items)
			}
		case *dictObj:
			if b, ok := x.s.heap.get(w).(*dictObj); ok {
				x.read(v, LocWhole, undef)
				x.read(w, LocWhole, undef)
				if a.used != b.used {
					return false, true
				}
				for _, e := range a.entries {
					if e.dead {
						continue
					}
					i, ok := x.dictFind(b, e.key)
					if !ok {
						return false, false
					}
					if i < 0 {
						return false, true
					}
					eq, ok := x.equal(e.val, b.entries[i].val)
					if !ok || !eq {
						return eq, ok
					}
				}
				return true, true
			}
		}
	}
	return v == w, true
}

func (x *exec) equalItems(a, b []Value) (bool, bool) {
	if len(a) != len(b) {
		return false, true
	}
	for i := range a {
		if a[i] == b[i] {
			continue // identity implies equality for the modelled types
		}
		eq, ok := x.equal(a[i], b[i])
		if !ok || !eq {
			return eq, ok
		}
	}
	return true, true
}

func num(v Value) bool { return v.K == KindInt || v.K == KindBool }

// floatOf is a number's value as a float (an int's or bool's exactly: they
// fit in 32 bits).
func (x *exec) floatOf(v Value) (float64, bool) {
	switch {
	case v.K == KindFloat:
		return x.p.floats[v.X].f, true
	case num(v):
		return float64(v.X), true
	}
	return 0, false
}

// tupleItems returns a tuple's items (heap or constant).
func (x *exec) tupleItems(v Value) ([]Value, bool) {
	switch v.K {
	case KindConst:
		c := &x.p.consts[v.X]
		if c.frozen {
			return nil, false
		}
		return c.items, true
	case KindRef:
		if s, ok := x.s.heap.get(v).(*seqObj); ok && s.tuple {
			return s.items, true
		}
	}
	return nil, false
}

// hashable checks that v can be a dict key, raising TypeError if not.
func (x *exec) hashable(v Value) bool {
	if v.K == KindFloat {
		x.unsupported("a float as a dict key")
		return false
	}
	if v.K != KindRef {
		return true
	}
	switch o := x.s.heap.get(v).(type) {
	case *dictObj, *viewObj:
		x.raise(bTypeError, "unhashable type: '"+x.typeName(v)+"'")
		return false
	case *seqObj:
		if !o.tuple {
			x.raise(bTypeError, "unhashable type: 'list'")
			return false
		}
		for _, it := range o.items {
			if !x.hashable(it) {
				return false
			}
		}
	}
	return true
}

// repr is repr(v) for messages (KeyError's, the differential tests'): the
// types modelled as CPython writes them; objects with an address in their
// repr are written without it.
func (x *exec) repr(v Value) string {
	switch v.K {
	case KindNone:
		return "None"
	case KindBool:
		if v.X != 0 {
			return "True"
		}
		return "False"
	case KindInt, KindLasti:
		return strconv.Itoa(int(v.X))
	case KindStr:
		return pyStrRepr(x.p.String(v))
	case KindFloat:
		return x.p.floats[v.X].repr
	case KindID:
		return "id(" + x.repr(ref(v.X)) + ")"
	case KindConst:
		c := &x.p.consts[v.X]
		if c.frozen {
			return "frozenset({" + x.joinRepr(c.items) + "})"
		}
		return x.tupleRepr(c.items)
	case KindBuiltin:
		d := &builtinTable[v.X]
		switch d.kind {
		case kindType, kindExcType:
			return "<class '" + d.name + "'>"
		case kindModule:
			return "<module '" + d.name + "'>"
		}
		return "<built-in function " + d.name + ">"
	case KindCode:
		return "<code object " + x.p.Codes[v.X].Name + ">"
	case KindRef:
		switch o := x.s.heap.get(v).(type) {
		case *strObj:
			return pyStrRepr(o.s)
		case *seqObj:
			if o.tuple {
				return x.tupleRepr(o.items)
			}
			return "[" + x.joinRepr(o.items) + "]"
		case *dictObj:
			s := "{"
			first := true
			for _, e := range o.entries {
				if e.dead {
					continue
				}
				if !first {
					s += ", "
				}
				first = false
				s += x.repr(e.key) + ": " + x.repr(e.val)
			}
			s += "}"
			if o.isDefault {
				return "defaultdict(" + x.repr(o.factory) + ", " + s + ")"
			}
			return s
		case *excObj:
			if o.msg != "" {
				return x.nameOfType(o.typ) + "(" + pyStrRepr(o.msg) + ")"
			}
			return x.nameOfType(o.typ) + x.tupleRepr(o.args)
		case *funcObj:
			return "<function " + o.code.QualName + ">"
		case *moduleObj:
			return "<module '" + x.p.String(o.name) + "'>"
		case *opaqueObj:
			return "<stand-in " + o.name + ">"
		case *hostObj:
			return "<" + o.label + ">"
		case *lockObj:
			if o.locked {
				return "<locked " + x.typeName(v) + " object>"
			}
			return "<unlocked " + x.typeName(v) + " object>"
		case *classObj:
			return "<class '" + x.p.String(o.name) + "'>"
		case *threadObj:
			return "<" + o.class + " object>"
		}
		return "<" + x.typeName(v) + " object>"
	}
	return "<undefined>"
}

func (x *exec) tupleRepr(items []Value) string {
	if len(items) == 1 {
		return "(" + x.repr(items[0]) + ",)"
	}
	return "(" + x.joinRepr(items) + ")"
}

func (x *exec) joinRepr(items []Value) string {
	s := ""
	for i, it := range items {
		if i > 0 {
			s += ", "
		}
		s += x.repr(it)
	}
	return s
}

// pyStrRepr is CPython's repr of a str: single quotes unless the string
// holds a single quote and no double quote.
func pyStrRepr(s string) string {
	q := byte('\'')
	hasSingle, hasDouble := false, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			hasSingle = true
		case '"':
			hasDouble = true
		}
	}
	if hasSingle && !hasDouble {
		q = '"'
	}
	b := []byte{q}
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r < 0x20 || r == 0x7f:
			b = append(b, []byte("\\x"+hex2(byte(r)))...)
		default:
			b = append(b, string(r)...)
		}
	}
	return string(append(b, q))
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// str is str(v): a str's content, an exception's message, else repr.
func (x *exec) str(v Value) string {
	if s, ok := x.strOf(v); ok {
		return s
	}
	if v.K == KindRef {
		if e, ok := x.s.heap.get(v).(*excObj); ok {
			return x.excMessage(e)
		}
	}
	return x.repr(v)
}

// strOf is v's text if v is a str.
func (x *exec) strOf(v Value) (string, bool) {
	switch v.K {
	case KindStr:
		return x.p.String(v), true
	case KindRef:
		if s, ok := x.s.heap.get(v).(*strObj); ok {
			return s.s, true
		}
	}
	return "", false
}

// newStr is the str s: the interned Value when the Program has it, else a
// new strObj.
func (x *exec) newStr(s string) Value {
	if v, ok := x.p.lookupStr(s); ok {
		return v
	}
	return x.s.heap.alloc(&strObj{s: s}, x.t)
}
