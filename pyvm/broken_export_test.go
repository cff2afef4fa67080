package pyvm

// Broken opcodes, for TestBrokenOpcodesAreCaught: each switches one
// opcode's function, in every version's table, for a wrong one until the
// returned function restores it. Tests that use them must not run in
// parallel with others of this package.

// BrokenOpcodes are the wrong functions by name.
var BrokenOpcodes = map[string]struct {
	op Opcode
	f  opFunc
}{
	// STORE_SUBSCR pops its three operands and stores nothing.
	"STORE_SUBSCR stores nothing": {OpStoreSubscr, func(x *exec) { x.f.pop(); x.f.pop(); x.f.pop() }},
	// BINARY_OP takes its operands in the wrong order (a - b is b - a).
	"BINARY_OP swaps its operands": {OpBinaryOp, func(x *exec) {
		w := x.f.pop()
		v := x.f.pop()
		x.f.push(w)
		x.f.push(v)
		opBinaryOp(x)
	}},
}

// BreakOpcodeForTest installs BrokenOpcodes[name].
func BreakOpcodeForTest(name string) (restore func()) {
	b := BrokenOpcodes[name]
	saved := map[Version]opFunc{}
	for v, t := range opTables {
		saved[v] = t.run[b.op]
		t.run[b.op] = b.f
	}
	return func() {
		for v, f := range saved {
			opTables[v].run[b.op] = f
		}
	}
}
