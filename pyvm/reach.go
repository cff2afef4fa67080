package pyvm

import (
	"cmp"
	"slices"
)

// Reach: the objects a thread may still touch, for an embedder's
// partial-order reduction (what a thread's future can depend on).
//
// A thread touches an object only through a reference it holds or reads:
// from its frames (locals, value stack, cells, the function it runs),
// from the globals its code names, from what those lead to, or from
// objects it makes itself. So the objects reachable from those roots,
// following every reference, hold every object that exists now and that
// the thread can touch without another thread's help; an object another
// thread hands it later is one that thread reaches now, which the
// embedder asks of that thread. Two things keep the set small without
// losing one object: a frame's globals dict is followed only at the
// names the code still to run there can resolve (Code.NamesFrom), and a
// function's at the names its whole code can; and an id() value is a
// number, not a reference.

// NamesFrom is every name an instruction of c that can run from
// instruction pc on (along fall-throughs, jumps and the exception
// table's handlers, the handler of the instruction before pc too: a
// generator resumed by a throw raises there) resolves its argument to,
// with every name of the code objects nested in c: a superset of the
// globals a frame of c at pc can still load, store or delete. pc < 0 or
// past the end: none of c's own. Worked out at Load.
func (c *Code) NamesFrom(pc int) []Value {
	if pc < 0 || pc >= len(c.namesFrom) {
		return c.nestedNames
	}
	return c.namesFrom[pc]
}

// next appends to buf the instructions that can run right after
// instruction i.
func (c *Code) next(i int, buf []int) []int {
	in := &c.Instrs[i]
	if in.Target >= 0 {
		buf = append(buf, in.Target)
	}
	switch in.Op {
	case OpJumpForward, OpJumpBackward, OpJumpBackwardNoInterrupt, OpReturnValue, OpReturnConst, OpReraise, OpRaiseVarargs:
	default:
		if i+1 < len(c.Instrs) {
			buf = append(buf, i+1)
		}
	}
	if e, ok := c.handler(i); ok {
		buf = append(buf, e.Target)
	}
	return buf
}

// names works out NamesFrom for c and the code nested in it.
func (p *Program) names(c *Code) {
	var nested []Value
	for i := range c.Consts {
		if k := &c.Consts[i]; k.Kind == ConstCode {
			if k.Code.namesFrom == nil {
				p.names(k.Code)
			}
			nested = append(nested, k.Code.NamesFrom(0)...)
		}
	}
	c.nestedNames = sortedNames(nested)
	c.namesFrom = make([][]Value, len(c.Instrs))
	seen := make([]bool, len(c.Instrs))
	var stack, buf []int
	for pc := range c.Instrs {
		clear(seen)
		out := slices.Clone(nested)
		stack = append(stack[:0], pc)
		if pc > 0 {
			if e, ok := c.handler(pc - 1); ok {
				stack = append(stack, e.Target)
			}
		}
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[i] {
				continue
			}
			seen[i] = true
			if name := c.Instrs[i].ArgName; name != "" {
				if v, ok := p.lookupStr(name); ok {
					out = append(out, v)
				}
			}
			buf = c.next(i, buf[:0])
			for _, n := range buf {
				if n >= 0 && n < len(c.Instrs) && !seen[n] {
					stack = append(stack, n)
				}
			}
		}
		c.namesFrom[pc] = sortedNames(out)
	}
}

func sortedNames(vs []Value) []Value {
	slices.SortFunc(vs, byX)
	return slices.Compact(vs)
}

// byX orders interned strings by their number.
func byX(a, b Value) int { return cmp.Compare(a.X, b.X) }

// Reach marks in seen (indexed by heap index, grown to the heap's size)
// every object thread t's running task (none: Idle) may still touch,
// and every object the given roots lead to (see above), and returns it.
func (s *State) Reach(seen []bool, t int, roots ...Value) []bool {
	n := len(s.heap.slots)
	if cap(seen) < n {
		seen = make([]bool, n)
	}
	seen = seen[:n]
	clear(seen)
	r := reacher{s: s, seen: seen, done: make([]bool, n)}
	if t >= 0 && t < len(s.threads) && s.threads[t].busy {
		for _, f := range s.threads[t].frames {
			r.push(Value{K: KindRef, X: f})
		}
		r.push(s.threads[t].excBase)
	}
	for _, v := range roots {
		r.push(v)
	}
	r.run()
	return seen
}

type reacher struct {
	s *State
	// seen is what Reach returns; done marks the objects followed (a
	// globals dict followed at some names is seen, not done)
	seen, done []bool
	stack      []Value
}

func (r *reacher) push(v Value) {
	if v.K == KindRef && !r.done[v.X] {
		r.seen[v.X], r.done[v.X] = true, true
		r.stack = append(r.stack, v)
	}
}

// named follows globals dict g at the names given (g itself is marked:
// a load reads its entry).
func (r *reacher) named(g Value, names []Value) {
	if g.K != KindRef {
		return
	}
	r.seen[g.X] = true
	d, ok := r.s.heap.get(g).(*dictObj)
	if !ok {
		r.push(g)
		return
	}
	for _, e := range d.entries {
		if e.dead {
			continue
		}
		if e.key.K != KindStr {
			r.push(e.key)
			r.push(e.val)
			continue
		}
		if _, found := slices.BinarySearchFunc(names, e.key, byX); found {
			r.push(e.val)
		}
	}
}

func (r *reacher) run() {
	for len(r.stack) > 0 {
		v := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		switch o := r.s.heap.get(v).(type) {
		case *frameObj:
			if o.code != nil && o.native == 0 {
				r.named(o.globals, o.code.NamesFrom(int(o.pc)))
			} else {
				r.push(o.globals)
			}
			if o.names != o.globals {
				r.push(o.names)
			}
			for _, x := range [][]Value{o.locals, o.stack, o.tmp} {
				for _, y := range x {
					r.push(y)
				}
			}
			r.push(o.gen)
			r.push(o.excInfo)
			r.push(o.kwnames)
			if o.fn.K == KindRef {
				if fn, ok := r.s.heap.get(o.fn).(*funcObj); ok {
					r.seen[o.fn.X] = true
					r.push(fn.closure) // what COPY_FREE_VARS reads; the code is the frame's own
				} else {
					r.push(o.fn)
				}
			}
		case *funcObj:
			r.named(o.globals, o.code.NamesFrom(0))
			r.push(o.closure)
			r.push(o.kwDefaults)
			for _, y := range o.defaults {
				r.push(y)
			}
		case *cmObj:
			if o.entered {
				r.push(o.gen) // the generator runs on; the function is not called again
			} else {
				r.push(o.fn)
				r.push(o.args)
			}
		default:
			eachRef(o, func(x Value) { r.push(x) })
		}
	}
}
