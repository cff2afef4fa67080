package pyvm

import "strconv"

// The code model: what the front-end (package pysource) reads out of a
// real CPython's code objects, one Code per code object, nested through
// their constants. It is plain data, built once and never changed; every
// State of every thread shares it.

// Code is one CPython code object.
type Code struct {
	Name, QualName string
	Filename       string
	FirstLine      int
	Flags          CodeFlags
	ArgCount       int
	PosOnlyCount   int
	KwOnlyCount    int
	StackSize      int      // co_stacksize
	Names          []string // co_names
	VarNames       []string // co_varnames
	CellVars       []string // co_cellvars
	FreeVars       []string // co_freevars
	// LocalsPlus are the frame's fast slots in index order (what
	// LOAD_FAST, MAKE_CELL, LOAD_DEREF, ... index since 3.11): the
	// variables, then the cells that are not arguments, then the free
	// variables.
	LocalsPlus []LocalVar
	Consts     []Const
	Instrs     []Instr
	// ExceptionTable maps instruction index ranges to handlers (3.11+'s
	// co_exceptiontable, as dis._parse_exception_table reads it).
	ExceptionTable []ExcEntry

	id   int     // the Program's number for it (Program.Codes)
	vals []Value // Consts as Values (Undef for an unsupported one)
	// namesFrom[pc] and nestedNames are NamesFrom's (reach.go)
	namesFrom   [][]Value
	nestedNames []Value
}

// CodeFlags are co_flags.
type CodeFlags uint32

// The co_flags the interpreter reads (Include/cpython/code.h).
const (
	FlagOptimized   CodeFlags = 0x0001
	FlagNewLocals   CodeFlags = 0x0002
	FlagVarArgs     CodeFlags = 0x0004
	FlagVarKeywords CodeFlags = 0x0008
	FlagNested      CodeFlags = 0x0010
	FlagGenerator   CodeFlags = 0x0020
	FlagCoroutine   CodeFlags = 0x0080
	FlagAsyncGen    CodeFlags = 0x0200
)

// LocalVar is one fast slot: its name and what kind of variable it is.
type LocalVar struct {
	Name string
	Kind LocalKind
}

// LocalKind is a fast slot's kind, as co_localspluskinds has it.
type LocalKind uint8

// The kinds of fast slot (Include/internal/pycore_code.h); a cell that
// is also an argument is Local|Cell.
const (
	LocalPlain LocalKind = 0x20
	LocalCell  LocalKind = 0x40
	LocalFree  LocalKind = 0x80
)

// Const is one entry of co_consts.
type Const struct {
	Kind  ConstKind
	Int   int64
	Str   string  // KindStr's value; KindFloat's and KindOther's repr
	Type  string  // KindOther's type name
	Float float64 // KindFloat's value
	Items []Const
	Code  *Code
}

// ConstKind says which field of a Const holds its value.
type ConstKind uint8

// The constants the interpreter knows; anything else is ConstOther,
// refused where it would run.
const (
	ConstNone ConstKind = 1 + iota
	ConstBool
	ConstInt
	ConstStr
	ConstTuple
	ConstFrozenSet
	ConstCode
	ConstFloat
	ConstOther
)

// Instr is one instruction, as dis.get_instructions shows it (inline
// caches not listed).
type Instr struct {
	Offset  int    // byte offset in co_code
	OpName  string // dis's opname
	Op      Opcode // OpName resolved; OpUnknown when the interpreter has no such opcode
	Arg     int    // the full oparg (EXTENDED_ARG folded in), -1 without one
	ArgName string // the name a name-taking instruction resolves its arg to
	ArgRepr string // dis's argrepr (COMPARE_OP's operator, ...)
	Line    int    // the line it stands for (0: none)
	Target  int    // a jump's target, as an index into Code.Instrs; -1 otherwise
}

// ExcEntry is one row of the exception table: an exception raised by an
// instruction with index in [Start, End) goes to Target with the value
// stack cut to Depth entries, and with the raising instruction's offset
// pushed first when Lasti.
type ExcEntry struct {
	Start, End, Target int
	Depth              int
	Lasti              bool
}

// IsGenerator reports whether calling the code makes a generator.
func (c *Code) IsGenerator() bool { return c.Flags&FlagGenerator != 0 }

// ID is the code's number in its Program (Program.Codes[c.ID()] == c).
func (c *Code) ID() int { return c.id }

// handler finds the exception table's entry for instruction i.
func (c *Code) handler(i int) (ExcEntry, bool) {
	for _, e := range c.ExceptionTable {
		if e.Start <= i && i < e.End {
			return e, true
		}
	}
	return ExcEntry{}, false
}

// Where is "file:line" of instruction i (the code's first line when the
// instruction has none).
func (c *Code) Where(i int) string {
	line := c.FirstLine
	if i >= 0 && i < len(c.Instrs) && c.Instrs[i].Line > 0 {
		line = c.Instrs[i].Line
	}
	return c.Filename + ":" + strconv.Itoa(line)
}
