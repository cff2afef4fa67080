package pyvm

// Opcode names an instruction the interpreter knows, whatever its number in
// a given CPython version (numbers change between versions, names are what
// dis reports). OpUnknown is any other: the refusal pass reports it.
type Opcode uint8

// The opcodes, in the order of opNames.
const (
	OpUnknown Opcode = iota
	OpNop
	OpExtendedArg
	OpResume
	OpPopTop
	OpPushNull
	OpCopy
	OpSwap
	OpEndFor
	OpLoadConst
	OpReturnValue
	OpReturnConst
	OpLoadFast
	OpLoadFastCheck
	OpLoadFastAndClear
	OpLoadFastLoadFast
	OpStoreFast
	OpStoreFastLoadFast
	OpStoreFastStoreFast
	OpDeleteFast
	OpLoadGlobal
	OpStoreGlobal
	OpDeleteGlobal
	OpLoadName
	OpStoreName
	OpDeleteName
	OpLoadDeref
	OpStoreDeref
	OpDeleteDeref
	OpLoadClosure
	OpMakeCell
	OpCopyFreeVars
	OpLoadAttr
	OpLoadMethod
	OpStoreAttr
	OpLoadBuildClass
	OpImportName
	OpImportFrom
	OpBinarySubscr
	OpStoreSubscr
	OpDeleteSubscr
	OpBinaryOp
	OpUnaryNot
	OpUnaryNegative
	OpUnaryPositive
	OpToBool
	OpCompareOp
	OpIsOp
	OpContainsOp
	OpBuildTuple
	OpBuildList
	OpBuildMap
	OpBuildConstKeyMap
	OpListAppend
	OpMapAdd
	OpListExtend
	OpListToTuple
	OpDictUpdate
	OpDictMerge
	OpUnpackSequence
	OpGetIter
	OpForIter
	OpJumpForward
	OpJumpBackward
	OpJumpBackwardNoInterrupt
	OpPopJumpForwardIfFalse
	OpPopJumpForwardIfTrue
	OpPopJumpForwardIfNone
	OpPopJumpForwardIfNotNone
	OpPopJumpBackwardIfFalse
	OpPopJumpBackwardIfTrue
	OpPopJumpBackwardIfNone
	OpPopJumpBackwardIfNotNone
	OpPopJumpIfFalse
	OpPopJumpIfTrue
	OpPopJumpIfNone
	OpPopJumpIfNotNone
	OpJumpIfFalseOrPop
	OpJumpIfTrueOrPop
	OpPrecall
	OpCall
	OpKwNames
	OpCallKw
	OpCallFunctionEx
	OpMakeFunction
	OpSetFunctionAttribute
	OpReturnGenerator
	OpYieldValue
	OpBeforeWith
	OpWithExceptStart
	OpPushExcInfo
	OpPopExcept
	OpReraise
	OpCheckExcMatch
	OpRaiseVarargs
	OpLoadAssertionError
	OpCallIntrinsic1
	opCount
)

// opNames are the opcodes' CPython names, indexed by Opcode.
var opNames = [opCount]string{
	OpUnknown:                  "<unknown>",
	OpNop:                      "NOP",
	OpExtendedArg:              "EXTENDED_ARG",
	OpResume:                   "RESUME",
	OpPopTop:                   "POP_TOP",
	OpPushNull:                 "PUSH_NULL",
	OpCopy:                     "COPY",
	OpSwap:                     "SWAP",
	OpEndFor:                   "END_FOR",
	OpLoadConst:                "LOAD_CONST",
	OpReturnValue:              "RETURN_VALUE",
	OpReturnConst:              "RETURN_CONST",
	OpLoadFast:                 "LOAD_FAST",
	OpLoadFastCheck:            "LOAD_FAST_CHECK",
	OpLoadFastAndClear:         "LOAD_FAST_AND_CLEAR",
	OpLoadFastLoadFast:         "LOAD_FAST_LOAD_FAST",
	OpStoreFast:                "STORE_FAST",
	OpStoreFastLoadFast:        "STORE_FAST_LOAD_FAST",
	OpStoreFastStoreFast:       "STORE_FAST_STORE_FAST",
	OpDeleteFast:               "DELETE_FAST",
	OpLoadGlobal:               "LOAD_GLOBAL",
	OpStoreGlobal:              "STORE_GLOBAL",
	OpDeleteGlobal:             "DELETE_GLOBAL",
	OpLoadName:                 "LOAD_NAME",
	OpStoreName:                "STORE_NAME",
	OpDeleteName:               "DELETE_NAME",
	OpLoadDeref:                "LOAD_DEREF",
	OpStoreDeref:               "STORE_DEREF",
	OpDeleteDeref:              "DELETE_DEREF",
	OpLoadClosure:              "LOAD_CLOSURE",
	OpMakeCell:                 "MAKE_CELL",
	OpCopyFreeVars:             "COPY_FREE_VARS",
	OpLoadAttr:                 "LOAD_ATTR",
	OpLoadMethod:               "LOAD_METHOD",
	OpStoreAttr:                "STORE_ATTR",
	OpLoadBuildClass:           "LOAD_BUILD_CLASS",
	OpImportName:               "IMPORT_NAME",
	OpImportFrom:               "IMPORT_FROM",
	OpBinarySubscr:             "BINARY_SUBSCR",
	OpStoreSubscr:              "STORE_SUBSCR",
	OpDeleteSubscr:             "DELETE_SUBSCR",
	OpBinaryOp:                 "BINARY_OP",
	OpUnaryNot:                 "UNARY_NOT",
	OpUnaryNegative:            "UNARY_NEGATIVE",
	OpUnaryPositive:            "UNARY_POSITIVE",
	OpToBool:                   "TO_BOOL",
	OpCompareOp:                "COMPARE_OP",
	OpIsOp:                     "IS_OP",
	OpContainsOp:               "CONTAINS_OP",
	OpBuildTuple:               "BUILD_TUPLE",
	OpBuildList:                "BUILD_LIST",
	OpBuildMap:                 "BUILD_MAP",
	OpBuildConstKeyMap:         "BUILD_CONST_KEY_MAP",
	OpListAppend:               "LIST_APPEND",
	OpMapAdd:                   "MAP_ADD",
	OpListExtend:               "LIST_EXTEND",
	OpListToTuple:              "LIST_TO_TUPLE",
	OpDictUpdate:               "DICT_UPDATE",
	OpDictMerge:                "DICT_MERGE",
	OpUnpackSequence:           "UNPACK_SEQUENCE",
	OpGetIter:                  "GET_ITER",
	OpForIter:                  "FOR_ITER",
	OpJumpForward:              "JUMP_FORWARD",
	OpJumpBackward:             "JUMP_BACKWARD",
	OpJumpBackwardNoInterrupt:  "JUMP_BACKWARD_NO_INTERRUPT",
	OpPopJumpForwardIfFalse:    "POP_JUMP_FORWARD_IF_FALSE",
	OpPopJumpForwardIfTrue:     "POP_JUMP_FORWARD_IF_TRUE",
	OpPopJumpForwardIfNone:     "POP_JUMP_FORWARD_IF_NONE",
	OpPopJumpForwardIfNotNone:  "POP_JUMP_FORWARD_IF_NOT_NONE",
	OpPopJumpBackwardIfFalse:   "POP_JUMP_BACKWARD_IF_FALSE",
	OpPopJumpBackwardIfTrue:    "POP_JUMP_BACKWARD_IF_TRUE",
	OpPopJumpBackwardIfNone:    "POP_JUMP_BACKWARD_IF_NONE",
	OpPopJumpBackwardIfNotNone: "POP_JUMP_BACKWARD_IF_NOT_NONE",
	OpPopJumpIfFalse:           "POP_JUMP_IF_FALSE",
	OpPopJumpIfTrue:            "POP_JUMP_IF_TRUE",
	OpPopJumpIfNone:            "POP_JUMP_IF_NONE",
	OpPopJumpIfNotNone:         "POP_JUMP_IF_NOT_NONE",
	OpJumpIfFalseOrPop:         "JUMP_IF_FALSE_OR_POP",
	OpJumpIfTrueOrPop:          "JUMP_IF_TRUE_OR_POP",
	OpPrecall:                  "PRECALL",
	OpCall:                     "CALL",
	OpKwNames:                  "KW_NAMES",
	OpCallKw:                   "CALL_KW",
	OpCallFunctionEx:           "CALL_FUNCTION_EX",
	OpMakeFunction:             "MAKE_FUNCTION",
	OpSetFunctionAttribute:     "SET_FUNCTION_ATTRIBUTE",
	OpReturnGenerator:          "RETURN_GENERATOR",
	OpYieldValue:               "YIELD_VALUE",
	OpBeforeWith:               "BEFORE_WITH",
	OpWithExceptStart:          "WITH_EXCEPT_START",
	OpPushExcInfo:              "PUSH_EXC_INFO",
	OpPopExcept:                "POP_EXCEPT",
	OpReraise:                  "RERAISE",
	OpCheckExcMatch:            "CHECK_EXC_MATCH",
	OpRaiseVarargs:             "RAISE_VARARGS",
	OpLoadAssertionError:       "LOAD_ASSERTION_ERROR",
	OpCallIntrinsic1:           "CALL_INTRINSIC_1",
}

func (o Opcode) String() string {
	if o < opCount {
		return opNames[o]
	}
	return "<unknown>"
}

// OpcodeByName resolves dis's opname; OpUnknown for one the interpreter
// does not know.
func OpcodeByName(name string) Opcode {
	for o := Opcode(1); o < opCount; o++ {
		if opNames[o] == name {
			return o
		}
	}
	return OpUnknown
}
