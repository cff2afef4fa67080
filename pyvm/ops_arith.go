package pyvm

import (
	"math"
	"strings"
)

// Arithmetic, comparison, identity and membership on the values
// modelled: ints (32 bits; a result beyond is a fault), bools, strs
// (compared, not built), tuples, lists, dicts.

// binaryOps are BINARY_OP's operators by oparg (Include/opcode.h's NB_*),
// the in-place ones at +13.
var binaryOps = [...]string{"+", "&", "//", "<<", "@", "*", "%", "|", "**", ">>", "-", "/", "^"}

func opBinaryOp(x *exec) {
	f := x.f
	w := f.pop()
	v := f.pop()
	op := x.in.Arg
	sym := binaryOps[op%13]
	if op >= 13 {
		sym += "="
	}
	if num(v) && num(w) {
		r, ok := x.intOp(op%13, int64(v.X), int64(w.X))
		if ok {
			f.push(r)
		}
		return
	}
	if op%13 == 0 { // + on sequences
		if a, ok := x.seqItems(v); ok && !x.isFrozenset(v) {
			if b, ok := x.seqItems(w); ok && !x.isFrozenset(w) && x.isTuple(v) == x.isTuple(w) {
				items := append(append([]Value(nil), a...), b...)
				if x.isTuple(v) {
					f.push(x.newTuple(items))
					return
				}
				x.read(v, LocWhole, undef)
				x.read(w, LocWhole, undef)
				if op >= 13 { // list += list extends in place
					x.write(v, LocWhole, undef)
					x.stored(v, w)
					x.s.heap.mut(v).(*seqObj).items = items
					f.push(v)
					return
				}
				f.push(x.newList(items))
				return
			}
		}
	}
	if a, ok := x.strOf(v); ok {
		if b, ok := x.strOf(w); ok && op%13 == 0 {
			f.push(x.newStr(a + b))
			return
		}
		if op%13 == 0 {
			x.raise(bTypeError, "can only concatenate str (not \""+x.typeName(w)+"\") to str")
			return
		}
	}
	if v.K == KindFloat || w.K == KindFloat {
		x.unsupported("arithmetic on a float")
		return
	}
	x.raise(bTypeError, "unsupported operand type(s) for "+sym+": '"+x.typeName(v)+"' and '"+x.typeName(w)+"'")
}

// intOp computes an int operator.
func (x *exec) intOp(op int, a, b int64) (Value, bool) {
	var r int64
	switch op {
	case 0:
		r = a + b
	case 1:
		r = a & b
	case 2, 6:
		if b == 0 {
			x.raise(bZeroDivisionError, "integer division or modulo by zero")
			return undef, false
		}
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		if op == 2 {
			r = q
		} else {
			r = a - q*b
		}
	case 3:
		if b < 0 {
			x.raise(bValueError, "negative shift count")
			return undef, false
		}
		if a == 0 {
			r = 0
			break
		}
		if b > 31 {
			x.unsupported("an int beyond 32 bits")
			return undef, false
		}
		r = a << b
	case 5:
		r = a * b
	case 7:
		r = a | b
	case 8:
		if b < 0 {
			x.unsupported("a float result of **")
			return undef, false
		}
		r = 1
		for i := int64(0); i < b; i++ {
			r *= a
			if r > math.MaxInt32 || r < math.MinInt32 {
				x.unsupported("an int beyond 32 bits")
				return undef, false
			}
		}
	case 9:
		if b < 0 {
			x.raise(bValueError, "negative shift count")
			return undef, false
		}
		if b > 63 {
			b = 63
		}
		r = a >> b
	case 10:
		r = a - b
	case 12:
		r = a ^ b
	default:
		x.unsupported("operator " + binaryOps[op] + " (its result is not an int)")
		return undef, false
	}
	if r > math.MaxInt32 || r < math.MinInt32 {
		x.unsupported("an int beyond 32 bits")
		return undef, false
	}
	return Int(int32(r)), true
}

// opUnaryNot is 3.11's and 3.12's `not v`; 3.13's gets a bool (TO_BOOL
// ran first), which truth reads the same.
func opUnaryNot(x *exec) {
	t, ok := x.truth(x.f.pop())
	if ok {
		x.f.push(Bool(!t))
	}
}

func opToBool(x *exec) {
	t, ok := x.truth(x.f.pop())
	if ok {
		x.f.push(Bool(t))
	}
}

func opUnaryNegative(x *exec) {
	v := x.f.pop()
	if v.K == KindFloat {
		x.unsupported("arithmetic on a float")
		return
	}
	if !num(v) {
		x.raise(bTypeError, "bad operand type for unary -: '"+x.typeName(v)+"'")
		return
	}
	if v.X == math.MinInt32 {
		x.unsupported("an int beyond 32 bits")
		return
	}
	x.f.push(Int(-v.X))
}

// opCompareOp compares; its operator is dis's argrepr ("==", or 3.13's
// "bool(==)", whose result is a bool either way for the types modelled).
func opCompareOp(x *exec) {
	w := x.f.pop()
	v := x.f.pop()
	op := x.in.ArgRepr
	if len(op) > 6 && op[:5] == "bool(" {
		op = op[5 : len(op)-1]
	}
	r, ok := x.compare(op, v, w)
	if ok {
		x.f.push(r)
	}
}

func (x *exec) compare(op string, v, w Value) (Value, bool) {
	switch op {
	case "==", "!=":
		eq, ok := x.equal(v, w)
		if !ok {
			return undef, false
		}
		return Bool(eq == (op == "==")), true
	}
	var c int
	switch {
	case num(v) && num(w):
		c = cmp3(int64(v.X), int64(w.X))
	case v.K == KindFloat || w.K == KindFloat:
		a, aok := x.floatOf(v)
		b, bok := x.floatOf(w)
		if !aok || !bok {
			x.unsupported("comparing a float with a " + x.typeName(v) + " or " + x.typeName(w))
			return undef, false
		}
		if a != a || b != b {
			return Bool(false), true // every order comparison with a NaN is False
		}
		switch {
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
	case x.isStr(v) && x.isStr(w):
		a, _ := x.strOf(v)
		b, _ := x.strOf(w)
		switch {
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
	default:
		if _, o := x.opaque(v); o {
			x.standInUsed(x.repr(v), "comparison")
			return undef, false
		}
		x.raise(bTypeError, "'"+op+"' not supported between instances of '"+x.typeName(v)+"' and '"+x.typeName(w)+"'")
		return undef, false
	}
	switch op {
	case "<":
		return Bool(c < 0), true
	case "<=":
		return Bool(c <= 0), true
	case ">":
		return Bool(c > 0), true
	case ">=":
		return Bool(c >= 0), true
	}
	x.unsupported("comparison " + op)
	return undef, false
}

func (x *exec) isStr(v Value) bool {
	_, ok := x.strOf(v)
	return ok
}

// opUnaryPositive is 3.11's +v (3.12 made it an intrinsic).
func opUnaryPositive(x *exec) {
	v := x.f.pop()
	if v.K == KindFloat {
		x.unsupported("arithmetic on a float")
		return
	}
	if !num(v) {
		x.raise(bTypeError, "bad operand type for unary +: '"+x.typeName(v)+"'")
		return
	}
	x.f.push(Int(v.X))
}

func cmp3(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// opIsOp is `is` (arg 0) and `is not` (arg 1): identity. Equal small ints
// and equal interned strings are identical, as CPython's are.
func opIsOp(x *exec) {
	w := x.f.pop()
	v := x.f.pop()
	same := v == w
	if v.K == KindBool || w.K == KindBool {
		same = v.K == w.K && v.X == w.X
	}
	x.f.push(Bool(same != (x.in.Arg == 1)))
}

// opContainsOp is `in` (arg 0) and `not in` (arg 1).
func opContainsOp(x *exec) {
	cont := x.f.pop()
	v := x.f.pop()
	in, ok := x.contains(cont, v)
	if ok {
		x.f.push(Bool(in != (x.in.Arg == 1)))
	}
}

func (x *exec) contains(cont, v Value) (bool, bool) {
	if _, ok := x.asDict(cont); ok {
		_, found, ok := x.dictGet(cont, v)
		return found, ok
	}
	if cont.K == KindRef {
		if vw, ok := x.s.heap.get(cont).(*viewObj); ok && vw.kind == iterDictKeys {
			_, found, ok := x.dictGet(vw.dict, v)
			return found, ok
		}
	}
	if items, ok := x.seqItems(cont); ok {
		if cont.K == KindRef && !x.isTuple(cont) {
			x.read(cont, LocWhole, undef)
		}
		if x.isFrozenset(cont) && !x.hashable(v) {
			return false, false
		}
		for _, it := range items {
			if it == v {
				return true, true
			}
			eq, ok := x.equal(it, v)
			if !ok {
				return false, false
			}
			if eq {
				return true, true
			}
		}
		return false, true
	}
	if o, ok := x.opaque(cont); ok {
		x.standInUsed(o.name, "membership test")
		return false, false
	}
	if s, ok := x.strOf(cont); ok {
		sub, ok := x.strOf(v)
		if !ok {
			x.raise(bTypeError, "'in <string>' requires string as left operand, not "+x.typeName(v))
			return false, false
		}
		return strings.Contains(s, sub), true
	}
	x.raise(bTypeError, "argument of type '"+x.typeName(cont)+"' is not iterable")
	return false, false
}
