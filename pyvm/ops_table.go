package pyvm

// The dispatch tables: one small function per opcode (gpython's shape),
// one table per CPython version. Most opcodes mean the same in every
// version and share a function; where a version changed an opcode's stack
// layout or behaviour, its table holds that version's function. Each
// function names the CPython code it follows and is checked against the
// real interpreter by the differential tests.

// opFunc runs one instruction (x.in) of the top frame (x.f).
type opFunc func(x *exec)

// opTable is a version's functions, and which opcodes it runs (the
// others run opUnsupported).
type opTable struct {
	run [opCount]opFunc
	has [opCount]bool
}

// opTables are the tables by version (lookup only).
var opTables = map[Version]*opTable{}

// common are the opcodes whose meaning is the same in 3.11, 3.12 and 3.13
// (or that exist in only one of them with one meaning).
var common = map[Opcode]opFunc{
	OpNop: opNop, OpExtendedArg: opNop, OpResume: opResume,
	OpPopTop: opPopTop, OpPushNull: opPushNull, OpCopy: opCopy, OpSwap: opSwap,
	OpLoadConst: opLoadConst, OpReturnValue: opReturnValue, OpReturnConst: opReturnConst,
	OpLoadFast: opLoadFast, OpLoadFastCheck: opLoadFast, OpLoadFastAndClear: opLoadFastAndClear,
	OpLoadFastLoadFast: opLoadFastLoadFast, OpStoreFast: opStoreFast,
	OpStoreFastLoadFast: opStoreFastLoadFast, OpStoreFastStoreFast: opStoreFastStoreFast,
	OpDeleteFast:  opDeleteFast,
	OpStoreGlobal: opStoreGlobal, OpDeleteGlobal: opDeleteGlobal,
	OpLoadName: opLoadName, OpStoreName: opStoreName, OpDeleteName: opDeleteName,
	OpLoadDeref: opLoadDeref, OpStoreDeref: opStoreDeref, OpDeleteDeref: opDeleteDeref,
	OpLoadClosure: opLoadClosure, OpMakeCell: opMakeCell, OpCopyFreeVars: opCopyFreeVars,
	OpLoadMethod: opLoadMethod, OpStoreAttr: opStoreAttr, OpLoadBuildClass: opLoadBuildClass,
	OpImportName: opImportName, OpImportFrom: opImportFrom,
	OpBinarySubscr: opBinarySubscr, OpStoreSubscr: opStoreSubscr, OpDeleteSubscr: opDeleteSubscr,
	OpBinaryOp: opBinaryOp, OpUnaryNot: opUnaryNot, OpUnaryPositive: opUnaryPositive, OpUnaryNegative: opUnaryNegative, OpToBool: opToBool,
	OpCompareOp: opCompareOp, OpIsOp: opIsOp, OpContainsOp: opContainsOp,
	OpBuildTuple: opBuildTuple, OpBuildList: opBuildList, OpBuildMap: opBuildMap,
	OpBuildConstKeyMap: opBuildConstKeyMap, OpListAppend: opListAppend, OpMapAdd: opMapAdd,
	OpListExtend: opListExtend, OpListToTuple: opListToTuple, OpDictUpdate: opDictUpdate, OpDictMerge: opDictMerge,
	OpUnpackSequence: opUnpackSequence, OpGetIter: opGetIter, OpForIter: opForIter,
	OpJumpForward: opJumpForward, OpJumpBackward: opJumpBackward,
	OpJumpBackwardNoInterrupt: opJumpBackwardNoInterrupt,
	OpPopJumpForwardIfFalse:   opPopJumpIfFalse, OpPopJumpForwardIfTrue: opPopJumpIfTrue,
	OpPopJumpForwardIfNone: opPopJumpIfNone, OpPopJumpForwardIfNotNone: opPopJumpIfNotNone,
	OpPopJumpBackwardIfFalse: opPopJumpBackwardIfFalse, OpPopJumpBackwardIfTrue: opPopJumpBackwardIfTrue,
	OpPopJumpBackwardIfNone: opPopJumpBackwardIfNone, OpPopJumpBackwardIfNotNone: opPopJumpBackwardIfNotNone,
	OpPopJumpIfFalse: opPopJumpIfFalse, OpPopJumpIfTrue: opPopJumpIfTrue,
	OpPopJumpIfNone: opPopJumpIfNone, OpPopJumpIfNotNone: opPopJumpIfNotNone,
	OpJumpIfFalseOrPop: opJumpIfFalseOrPop, OpJumpIfTrueOrPop: opJumpIfTrueOrPop,
	OpPrecall: opNop, OpKwNames: opKwNames,
	OpMakeFunction: opMakeFunction, OpSetFunctionAttribute: opSetFunctionAttribute,
	OpReturnGenerator: opReturnGenerator, OpYieldValue: opYieldValue,
	OpBeforeWith: opBeforeWith, OpWithExceptStart: opWithExceptStart,
	OpPushExcInfo: opPushExcInfo, OpPopExcept: opPopExcept, OpReraise: opReraise,
	OpCheckExcMatch: opCheckExcMatch, OpRaiseVarargs: opRaiseVarargs,
	OpLoadAssertionError: opLoadAssertionError, OpCallIntrinsic1: opCallIntrinsic1,
}

// perVersion are the opcodes whose stack layout depends on the version.
var perVersion = map[Version]map[Opcode]opFunc{
	V311: {OpLoadGlobal: opLoadGlobal311, OpLoadAttr: opLoadAttr311, OpCall: opCall311,
		OpCallFunctionEx: opCallFunctionEx311, OpEndFor: nil},
	V312: {OpLoadGlobal: opLoadGlobal311, OpLoadAttr: opLoadAttr312, OpCall: opCall311,
		OpCallFunctionEx: opCallFunctionEx311, OpEndFor: opEndFor312},
	V313: {OpLoadGlobal: opLoadGlobal313, OpLoadAttr: opLoadAttr313, OpCall: opCall313, OpCallKw: opCallKw313,
		OpCallFunctionEx: opCallFunctionEx313, OpEndFor: opPopTop},
}

// versionOnly restricts opcodes to the versions whose dis has them, so
// that the refusal pass reports an opcode a version never emits as
// unknown rather than running it with another version's meaning.
var versionOnly = map[Opcode][]Version{
	OpPrecall: {V311}, OpLoadMethod: {V311}, OpListToTuple: {V311}, OpUnaryPositive: {V311},
	OpJumpIfFalseOrPop: {V311}, OpJumpIfTrueOrPop: {V311},
	OpPopJumpForwardIfFalse: {V311}, OpPopJumpForwardIfTrue: {V311},
	OpPopJumpForwardIfNone: {V311}, OpPopJumpForwardIfNotNone: {V311},
	OpPopJumpBackwardIfFalse: {V311}, OpPopJumpBackwardIfTrue: {V311},
	OpPopJumpBackwardIfNone: {V311}, OpPopJumpBackwardIfNotNone: {V311},
	OpReturnConst: {V312, V313}, OpLoadFastCheck: {V312, V313}, OpLoadFastAndClear: {V312, V313},
	OpPopJumpIfFalse: {V312, V313}, OpPopJumpIfTrue: {V312, V313},
	OpPopJumpIfNone: {V312, V313}, OpPopJumpIfNotNone: {V312, V313},
	OpCallIntrinsic1: {V312, V313},
	OpKwNames:        {V311, V312}, OpLoadClosure: {V311, V312},
	OpLoadFastLoadFast: {V313}, OpStoreFastLoadFast: {V313}, OpStoreFastStoreFast: {V313},
	OpToBool: {V313}, OpSetFunctionAttribute: {V313},
	// 3.11 and 3.12 emit it only in yield from's and await's SEND loops,
	// which the interpreter does not run
	OpJumpBackwardNoInterrupt: {V313},
}

func init() {
	for _, v := range Versions {
		t := new(opTable)
		for op, f := range common {
			t.run[op] = f
		}
		for op, f := range perVersion[v] {
			t.run[op] = f
		}
		for op, vs := range versionOnly {
			in := false
			for _, w := range vs {
				in = in || w == v
			}
			if !in {
				t.run[op] = nil
			}
		}
		for op := range t.run {
			t.has[op] = t.run[op] != nil && Opcode(op) != OpUnknown
			if !t.has[op] {
				t.run[op] = opUnsupported
			}
		}
		opTables[v] = t
	}
}

// supports reports whether the program's version runs op.
func (p *Program) supports(op Opcode) bool { return p.ops.has[op] }

func opUnsupported(x *exec) { x.unsupported("opcode " + x.in.OpName) }

func opNop(x *exec) {}

// SupportedOpcodes are the opcodes version v runs, in Opcode order.
func SupportedOpcodes(v Version) []Opcode {
	t := opTables[v]
	if t == nil {
		return nil
	}
	var ops []Opcode
	for op := Opcode(1); op < opCount; op++ {
		if t.has[op] {
			ops = append(ops, op)
		}
	}
	return ops
}
