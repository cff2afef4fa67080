package pyvm

import "fmt"

// The builtins: functions, types, exception types, the stand-in modules
// collections, threading and contextlib, and the methods of the built-in
// types, one table indexed by a KindBuiltin Value's X. The table is
// fixed at init; nothing in it changes during a run.

// builtinID indexes builtinTable.
type builtinID int32

// The builtins, in table order. Types come first so that typeOf can
// return them.
const (
	bNone builtinID = iota // not a builtin (the zero)
	// types
	bObject
	bType
	bNoneType
	bBool
	bInt
	bFloat
	bStr
	bTuple
	bList
	bDict
	bDefaultdict
	bFrozenset
	bRange
	bFunction
	bBuiltinFunction
	bMethod
	bCell
	bGenerator
	bLock
	bRLock
	bThread
	bCondition
	bModule
	bStandIn
	bGeneratorCM
	bDictKeys
	bDictValues
	bDictItems
	bDictKeyIterator
	bDictValueIterator
	bDictItemIterator
	bListIterator
	bTupleIterator
	bRangeIterator
	bProperty
	bCode
	bFrame
	bHost
	// exception types
	bBaseException
	bException
	bGeneratorExit
	bKeyboardInterrupt
	bSystemExit
	bStopIteration
	bArithmeticError
	bZeroDivisionError
	bOverflowError
	bAssertionError
	bAttributeError
	bImportError
	bLookupError
	bIndexError
	bKeyError
	bNameError
	bUnboundLocalError
	bRuntimeError
	bNotImplementedError
	bTypeError
	bValueError
	bStandInError
	bKernelError
	// functions
	bID
	bLen
	bIsinstance
	bNext
	bIter
	bGetattr
	bAny
	bAll
	bBuildClass
	bStaticmethod
	bClassmethod
	// stand-in modules and their members
	bCollections
	bThreading
	bContextlib
	bContextmanager
	bAllocateLock
	bRLockFactory
	bCurrentThread
	// methods
	bDictGet
	bDictItemsM
	bDictKeysM
	bDictValuesM
	bDictUpdate
	bDictPop
	bDictSetdefault
	bDictCopy
	bDictClear
	bListAppend
	bListPop
	bListExtend
	bLockAcquire
	bLockRelease
	bLockLocked
	bLockEnter
	bLockExit
	bGenSend
	bGenThrow
	bGenClose
	bCMEnter
	bCMExit
	bCondWait
	bCondAcquire
	bCondRelease
	bCondEnter
	bCondExit
	bCondNotify
	bCondNotifyAll
	builtinCount
)

// builtinKind says what a builtin is.
type builtinKind uint8

const (
	kindType builtinKind = 1 + iota
	kindExcType
	kindFunc
	kindModule
	kindMethod
)

// builtinDef is one builtin: its name as Python shows it, what it is,
// its base type (a type's; object for the root), the type a method
// belongs to, and its call.
type builtinDef struct {
	name  string
	kind  builtinKind
	base  builtinID // a type's base
	owner builtinID // a method's type
	// module is a stand-in module member's module (for its __module__ and
	// the refusal pass), or a stand-in module's own name.
	module string
	call   builtinFunc
}

// builtinFunc calls a builtin with positional args (self first for a
// method) and keyword args; site says how a frame it pushes hands back.
type builtinFunc func(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus)

// kwArg is one keyword argument.
type kwArg struct{ name, val Value }

// callStatus is how a call went.
type callStatus uint8

const (
	// statusDone: it returned the value.
	statusDone callStatus = 1 + iota
	// statusRaised: it raised x.exc.
	statusRaised
	// statusPushed: it pushed a frame, whose outcome reaches the caller
	// through the frame's retMode.
	statusPushed
	// statusBlocked: it would block; nothing changed.
	statusBlocked
)

// callSite is the instruction (or native frame) that calls: it fixes
// whether CPython checks the eval breaker after a C callee returned, and
// how a pushed frame hands back.
type callSite uint8

const (
	// siteCall: CALL (and 3.13's CALL_KW): a Python function runs inline
	// and its return is not checked; anything else is a C call, checked
	// after it returned.
	siteCall callSite = 1 + iota
	// siteCallEx: CALL_FUNCTION_EX (3.11; 3.12, 3.13): checked after any
	// callee returned.
	siteCallEx
	// siteQuiet: BEFORE_WITH, WITH_EXCEPT_START, a property's getter
	// (LOAD_ATTR): no check after the call.
	siteQuiet
	// siteNative: a native frame, which does its own checks.
	siteNative
)

// builtinTable is the table; builtinByName its names, for the refusal
// pass and the stand-in modules' attributes (lookup only).
var (
	builtinTable  [builtinCount]builtinDef
	builtinByName = map[string]builtinID{}
)

// builtinNames are the names LOAD_GLOBAL and LOAD_NAME find in builtins,
// in the order of Python's builtins module (what the refusal pass accepts).
var builtinNames = []builtinID{
	bObject, bType, bBool, bInt, bStr, bTuple, bList, bDict, bFrozenset, bRange,
	bBaseException, bException, bGeneratorExit, bKeyboardInterrupt, bSystemExit,
	bStopIteration, bArithmeticError, bZeroDivisionError, bOverflowError,
	bAssertionError, bAttributeError, bImportError, bLookupError, bIndexError,
	bKeyError, bNameError, bUnboundLocalError, bRuntimeError, bNotImplementedError,
	bTypeError, bValueError,
	bID, bLen, bIsinstance, bNext, bIter, bGetattr, bAny, bAll, bBuildClass, bStaticmethod,
	bClassmethod, bProperty,
}

func def(id builtinID, name string, kind builtinKind, base builtinID, call builtinFunc) {
	builtinTable[id] = builtinDef{name: name, kind: kind, base: base, call: call}
}

func method(id, owner builtinID, name string, call builtinFunc) {
	builtinTable[id] = builtinDef{name: name, kind: kindMethod, owner: owner, call: call}
}

func init() {
	def(bObject, "object", kindType, bNone, callObject)
	def(bType, "type", kindType, bObject, callType)
	def(bNoneType, "NoneType", kindType, bObject, nil)
	def(bBool, "bool", kindType, bInt, callBool)
	def(bInt, "int", kindType, bObject, callInt)
	def(bFloat, "float", kindType, bObject, nil) // a float constant's type; float() itself is refused
	def(bStr, "str", kindType, bObject, callStr)
	def(bTuple, "tuple", kindType, bObject, callTuple)
	def(bList, "list", kindType, bObject, callList)
	def(bDict, "dict", kindType, bObject, callDict)
	def(bDefaultdict, "collections.defaultdict", kindType, bDict, callDefaultdict)
	def(bFrozenset, "frozenset", kindType, bObject, nil)
	def(bRange, "range", kindType, bObject, callRange)
	def(bFunction, "function", kindType, bObject, nil)
	def(bBuiltinFunction, "builtin_function_or_method", kindType, bObject, nil)
	def(bMethod, "method", kindType, bObject, nil)
	def(bCell, "cell", kindType, bObject, nil)
	def(bGenerator, "generator", kindType, bObject, nil)
	def(bLock, "_thread.lock", kindType, bObject, callAllocateLock)
	def(bRLock, "_thread.RLock", kindType, bObject, nil)
	def(bThread, "threading.Thread", kindType, bObject, nil)
	def(bCondition, "threading.Condition", kindType, bObject, callCondition)
	builtinTable[bCondition].module = "threading"
	def(bModule, "module", kindType, bObject, nil)
	def(bStandIn, "swapcheck.StandIn", kindType, bObject, nil)
	def(bGeneratorCM, "contextlib._GeneratorContextManager", kindType, bObject, nil)
	def(bDictKeys, "dict_keys", kindType, bObject, nil)
	def(bDictValues, "dict_values", kindType, bObject, nil)
	def(bDictItems, "dict_items", kindType, bObject, nil)
	def(bDictKeyIterator, "dict_keyiterator", kindType, bObject, nil)
	def(bDictValueIterator, "dict_valueiterator", kindType, bObject, nil)
	def(bDictItemIterator, "dict_itemiterator", kindType, bObject, nil)
	def(bListIterator, "list_iterator", kindType, bObject, nil)
	def(bTupleIterator, "tuple_iterator", kindType, bObject, nil)
	def(bRangeIterator, "range_iterator", kindType, bObject, nil)
	def(bProperty, "property", kindType, bObject, callProperty)
	def(bCode, "code", kindType, bObject, nil)
	def(bFrame, "frame", kindType, bObject, nil)
	def(bHost, "swapcheck.HostObject", kindType, bObject, nil)

	exc := func(id builtinID, name string, base builtinID) { def(id, name, kindExcType, base, callException) }
	exc(bBaseException, "BaseException", bObject)
	exc(bException, "Exception", bBaseException)
	exc(bGeneratorExit, "GeneratorExit", bBaseException)
	exc(bKeyboardInterrupt, "KeyboardInterrupt", bBaseException)
	exc(bSystemExit, "SystemExit", bBaseException)
	exc(bStopIteration, "StopIteration", bException)
	exc(bArithmeticError, "ArithmeticError", bException)
	exc(bZeroDivisionError, "ZeroDivisionError", bArithmeticError)
	exc(bOverflowError, "OverflowError", bArithmeticError)
	exc(bAssertionError, "AssertionError", bException)
	exc(bAttributeError, "AttributeError", bException)
	exc(bImportError, "ImportError", bException)
	exc(bLookupError, "LookupError", bException)
	exc(bIndexError, "IndexError", bLookupError)
	exc(bKeyError, "KeyError", bLookupError)
	exc(bNameError, "NameError", bException)
	exc(bUnboundLocalError, "UnboundLocalError", bNameError)
	exc(bRuntimeError, "RuntimeError", bException)
	exc(bNotImplementedError, "NotImplementedError", bRuntimeError)
	exc(bTypeError, "TypeError", bException)
	exc(bValueError, "ValueError", bException)
	// StandInError is swapcheck's own: a stand-in (numpy, numba's modules)
	// was used beyond being bound or compared.
	exc(bStandInError, "swapcheck.StandInError", bException)
	// KernelError is swapcheck's own: the exception a scenario's kernel
	// raises (its raise statement, a raise fault), standing for any a
	// user's kernel can raise (package source makes it; package model's
	// KernelError)
	exc(bKernelError, "swapcheck.KernelError", bException)

	def(bID, "id", kindFunc, bNone, callID)
	def(bLen, "len", kindFunc, bNone, callLen)
	def(bIsinstance, "isinstance", kindFunc, bNone, callIsinstance)
	def(bNext, "next", kindFunc, bNone, callNext)
	def(bIter, "iter", kindFunc, bNone, callIter)
	def(bGetattr, "getattr", kindFunc, bNone, callGetattr)
	def(bAny, "any", kindFunc, bNone, callAnyAll(false))
	def(bAll, "all", kindFunc, bNone, callAnyAll(true))
	def(bBuildClass, "__build_class__", kindFunc, bNone, callBuildClass)
	def(bStaticmethod, "staticmethod", kindType, bObject, descriptor(bStaticmethod))
	def(bClassmethod, "classmethod", kindType, bObject, descriptor(bClassmethod))

	def(bCollections, "collections", kindModule, bNone, nil)
	def(bThreading, "threading", kindModule, bNone, nil)
	def(bContextlib, "contextlib", kindModule, bNone, nil)
	def(bContextmanager, "contextmanager", kindFunc, bNone, callContextmanager)
	builtinTable[bContextmanager].module = "contextlib"
	def(bAllocateLock, "allocate_lock", kindFunc, bNone, callAllocateLock)
	builtinTable[bAllocateLock].module = "_thread"
	def(bRLockFactory, "RLock", kindFunc, bNone, callRLock)
	builtinTable[bRLockFactory].module = "threading"
	def(bCurrentThread, "current_thread", kindFunc, bNone, callCurrentThread)
	builtinTable[bCurrentThread].module = "threading"
	builtinTable[bDefaultdict].module = "collections"

	method(bDictGet, bDict, "get", callDictGet)
	method(bDictItemsM, bDict, "items", callDictView(iterDictItems))
	method(bDictKeysM, bDict, "keys", callDictView(iterDictKeys))
	method(bDictValuesM, bDict, "values", callDictView(iterDictValues))
	method(bDictUpdate, bDict, "update", callDictUpdate)
	method(bDictPop, bDict, "pop", callDictPop)
	method(bDictSetdefault, bDict, "setdefault", callDictSetdefault)
	method(bDictCopy, bDict, "copy", callDictCopy)
	method(bDictClear, bDict, "clear", callDictClear)
	method(bListAppend, bList, "append", callListAppend)
	method(bListPop, bList, "pop", callListPop)
	method(bListExtend, bList, "extend", callListExtend)
	method(bLockAcquire, bLock, "acquire", callLockAcquire)
	method(bLockRelease, bLock, "release", callLockRelease)
	method(bLockLocked, bLock, "locked", callLockLocked)
	method(bLockEnter, bLock, "__enter__", callLockAcquire)
	method(bLockExit, bLock, "__exit__", callLockExit)
	method(bGenSend, bGenerator, "send", callGenSend)
	method(bGenThrow, bGenerator, "throw", callGenThrow)
	method(bGenClose, bGenerator, "close", callGenClose)
	method(bCMEnter, bGeneratorCM, "__enter__", callCMEnter)
	method(bCMExit, bGeneratorCM, "__exit__", callCMExit)
	method(bCondWait, bCondition, "wait", callCondWait)
	method(bCondAcquire, bCondition, "acquire", callCondAcquire)
	method(bCondRelease, bCondition, "release", callCondRelease)
	method(bCondEnter, bCondition, "__enter__", callCondAcquire)
	method(bCondExit, bCondition, "__exit__", callCondExit)
	method(bCondNotify, bCondition, "notify", callCondNotify)
	method(bCondNotifyAll, bCondition, "notify_all", callCondNotifyAll)

	for id := builtinID(1); id < builtinCount; id++ {
		if builtinTable[id].name == "" {
			panic(fmt.Sprintf("pyvm: builtin %d has no definition", id))
		}
	}
	for _, id := range builtinNames {
		builtinByName[builtinTable[id].name] = id
	}
	initMethods()
}

// builtin is the Value of builtin id.
func builtin(id builtinID) Value { return Value{K: KindBuiltin, X: int32(id)} }

// isBuiltin reports whether v is builtin id.
func (v Value) isBuiltin(id builtinID) bool { return v.K == KindBuiltin && builtinID(v.X) == id }

// subtype reports whether builtin type t is sub or one of its bases.
func subtype(t, sup builtinID) bool {
	for ; t != bNone; t = builtinTable[t].base {
		if t == sup {
			return true
		}
	}
	return false
}

// moduleMembers are the stand-in modules' attributes the interpreter
// models (the refusal pass accepts these names after an import).
var moduleMembers = map[builtinID][]struct {
	name string
	id   builtinID
}{
	bCollections: {{"defaultdict", bDefaultdict}},
	bThreading:   {{"Lock", bAllocateLock}, {"RLock", bRLockFactory}, {"current_thread", bCurrentThread}, {"Condition", bCondition}},
	bContextlib:  {{"contextmanager", bContextmanager}},
}

// standInModules are the modules an import resolves to a stand-in of the
// interpreter's own.
var standInModules = map[string]builtinID{
	"collections": bCollections,
	"threading":   bThreading,
	"contextlib":  bContextlib,
}
