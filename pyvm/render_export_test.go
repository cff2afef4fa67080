package pyvm

// Render is the differential tests' rendering of a value, the same shape
// as testdata/harness.py's Renderer gives for CPython's: tagged lists,
// mutable objects numbered on first sight ("ref" n after), id() values as
// ["id", object].
type Renderer struct {
	s       *State
	numbers map[int32]int
}

// NewRenderer starts a rendering (one numbering) over s.
func NewRenderer(s *State) *Renderer { return &Renderer{s: s, numbers: map[int32]int{}} }

func (r *Renderer) numbered(v Value) (any, bool) {
	if n, ok := r.numbers[v.X]; ok {
		return []any{"ref", n}, true
	}
	n := len(r.numbers)
	r.numbers[v.X] = n
	return n, false
}

// Render renders v.
func (r *Renderer) Render(v Value) any {
	s := r.s
	x := s.setupExec()
	switch v.K {
	case KindNone, KindUndef:
		return []any{"None"}
	case KindBool:
		return []any{"bool", v.X != 0}
	case KindInt:
		return []any{"int", int(v.X)}
	case KindStr:
		return []any{"str", s.p.String(v)}
	case KindFloat:
		return []any{"float", s.p.floats[v.X].repr}
	case KindID:
		return []any{"id", r.Render(ref(v.X))}
	case KindConst:
		c := &s.p.consts[v.X]
		if c.frozen {
			return []any{"other", "frozenset"}
		}
		return []any{"tuple", r.renderAll(c.items)}
	case KindBuiltin:
		d := &builtinTable[v.X]
		switch d.kind {
		case kindType, kindExcType:
			return []any{"type", x.nameOfType(v)}
		case kindModule:
			return []any{"module", d.name}
		case kindMethod:
			return []any{"func", x.nameOfType(builtin(d.owner)) + "." + d.name}
		}
		return []any{"func", d.name}
	case KindRef:
		switch o := s.heap.get(v).(type) {
		case *strObj:
			return []any{"str", o.s}
		case *seqObj:
			if o.tuple {
				return []any{"tuple", r.renderAll(o.items)}
			}
			n, seen := r.numbered(v)
			if seen {
				return n
			}
			return []any{"list", n, r.renderAll(o.items)}
		case *dictObj:
			n, seen := r.numbered(v)
			if seen {
				return n
			}
			items := []any{}
			for _, e := range o.entries {
				if !e.dead {
					items = append(items, []any{r.Render(e.key), r.Render(e.val)})
				}
			}
			if o.isDefault {
				return []any{"defaultdict", n, r.Render(o.factory), items}
			}
			return []any{"dict", n, items}
		case *rangeObj:
			return []any{"range", int(o.start), int(o.stop), int(o.step)}
		case *excObj:
			n, seen := r.numbered(v)
			if seen {
				return n
			}
			return []any{"exc", n, x.nameOfType(o.typ), x.excMessage(o)}
		case *genObj:
			n, seen := r.numbered(v)
			if seen {
				return n
			}
			return []any{"gen", n, [...]string{genCreated: "created", genSuspended: "suspended", genRunning: "running", genDone: "done"}[o.state]}
		case *cmObj:
			n, seen := r.numbered(v)
			if seen {
				return n
			}
			return []any{"gcm", n}
		case *lockObj:
			n, seen := r.numbered(v)
			if seen {
				return n
			}
			if o.reentrant {
				return []any{"rlock", n, o.locked}
			}
			return []any{"lock", n, o.locked}
		case *moduleObj:
			return []any{"module", s.p.String(o.name)}
		case *funcObj:
			return []any{"func", o.code.QualName}
		case *cmFactoryObj:
			return r.Render(o.fn)
		case *methodObj:
			f := r.Render(o.fn).([]any)
			if _, isClass := s.heap.get(o.self).(*classObj); isClass && o.self.K == KindRef {
				return f
			}
			return f
		case *classObj:
			return []any{"type", s.p.String(o.name)}
		}
		return []any{"other", x.typeName(v)}
	}
	return []any{"other", "?"}
}

func (r *Renderer) renderAll(vs []Value) []any {
	out := []any{}
	for _, v := range vs {
		out = append(out, r.Render(v))
	}
	return out
}

// BreakOpcode replaces op's function in every version's table with
// broken, for the test that the differential test catches a broken
// opcode; the returned func puts it back. Tests using it must not run in
// parallel with others.
func BreakOpcode(op Opcode, broken func(x *Exec)) (restore func()) {
	saved := map[Version]opFunc{}
	for v, t := range opTables {
		saved[v] = t.run[op]
		orig := t.run[op]
		t.run[op] = func(x *exec) { broken(&Exec{x: x, orig: orig}) }
	}
	return func() {
		for v, t := range opTables {
			t.run[op] = saved[v]
		}
	}
}

// Exec lets a broken opcode run the real one and then tamper with the
// frame's value stack.
type Exec struct {
	x    *exec
	orig opFunc
}

// Run runs the real opcode.
func (e *Exec) Run() { e.orig(e.x) }

// Top is the value on top of the stack (after Run).
func (e *Exec) Top() Value { return e.x.f.top() }

// SetTop replaces it.
func (e *Exec) SetTop(v Value) { e.x.f.setPeek(1, v) }
