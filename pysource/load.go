package pysource

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"swapcheck/pyvm"
)

// DefaultFunction is the function checked when a spec names none.
const DefaultFunction = "swapped_cuda_module"

// Source is a file as an interpreter compiled it.
type Source struct {
	Interpreter Interpreter
	File        string     // the path as given
	Name        string     // the function to check
	Module      *pyvm.Code // the module's code object, nested code in its constants
	Functions   []Function // the file's top-level functions
}

// Function is a top-level def of the file.
type Function struct {
	Name string
	Line int
}

// ParseSpec splits "FILE[:NAME]": NAME is what follows the last colon when
// that is a Python identifier, else the whole spec is the file.
func ParseSpec(spec string) (file, name string) {
	if i := strings.LastIndexByte(spec, ':'); i >= 0 && isIdentifier(spec[i+1:]) {
		return spec[:i], spec[i+1:]
	}
	return spec, DefaultFunction
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r > 0x7f
		if !letter && !(i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// Open finds the interpreter spec names (Find) and has it load the file
// (Load). Where the interpreter that ran is not the one the probe cache
// said (a *StaleInterpreterError: a pyenv shim now selects another
// version), every candidate is run again and the file loaded by what
// that finds.
func Open(spec, file string) (*Source, error) { return OpenIn(OSEnv(), spec, file) }

// OpenIn is Open in env.
func OpenIn(env Env, spec, file string) (*Source, error) {
	in, err := FindIn(env, spec)
	if err != nil {
		return nil, err
	}
	src, err := LoadIn(env, in, file)
	if _, stale := err.(*StaleInterpreterError); stale && env.Cache != "" {
		env.refresh = true
		if in, err = FindIn(env, spec); err != nil {
			return nil, err
		}
		src, err = LoadIn(env, in, file)
	}
	return src, err
}

// sameInterpreter reports whether two answers are the same Python.
func sameInterpreter(a, b interpJSON) bool {
	return slices.Equal(a.Version, b.Version) && a.Implementation == b.Implementation &&
		a.GILDisabled == b.GILDisabled && (a.Executable == "" || b.Executable == "" || a.Executable == b.Executable)
}

// Load has interp compile the file spec names ("FILE[:NAME]") and decodes
// its code objects. The file is compiled, never run.
func Load(interp Interpreter, spec string) (*Source, error) {
	return LoadIn(OSEnv(), interp, spec)
}

// LoadIn is Load in env.
func LoadIn(env Env, interp Interpreter, spec string) (*Source, error) {
	file, name := ParseSpec(spec)
	st, err := os.Stat(file)
	switch {
	case os.IsNotExist(err):
		return nil, &NoFileError{File: file, Reason: "no such file"}
	case err != nil:
		return nil, &NoFileError{File: file, Reason: oneLine(err.Error())}
	case st.IsDir():
		return nil, &NoFileError{File: file, Reason: "is a directory, not a Python file"}
	}
	if !interp.Supported() {
		return nil, &UnsupportedVersionError{Interp: interp}
	}
	out, err := runHelper(env, interp.Path, file)
	if err != nil {
		return nil, &HelperError{Interp: interp, Reason: err.Error()}
	}
	var d dumpJSON
	if err := json.Unmarshal(out, &d); err != nil {
		return nil, &HelperError{Interp: interp, Reason: "unreadable answer: " + oneLine(err.Error())}
	}
	if got := d.Interpreter; len(got.Version) == 3 && !sameInterpreter(got, interp.json()) {
		return nil, &StaleInterpreterError{Interp: interp, Now: got.interp(interp.Path)}
	}
	if d.Error != nil {
		switch d.Error.Kind {
		case "syntax":
			return nil, &SyntaxError{Message: oneLine(d.Error.Message)}
		case "file":
			return nil, &NoFileError{File: file, Reason: oneLine(strings.TrimPrefix(d.Error.Message, file+": "))}
		}
		return nil, &HelperError{Interp: interp, Reason: oneLine(d.Error.Message)}
	}
	if d.Module == nil {
		return nil, &HelperError{Interp: interp, Reason: "no module in the answer"}
	}
	mod, err := decodeCode(d.Module, interp.Version)
	if err != nil {
		return nil, &HelperError{Interp: interp, Reason: err.Error()}
	}
	src := &Source{Interpreter: interp, File: file, Name: name, Module: mod, Functions: d.Functions}
	found := false
	for _, f := range d.Functions {
		found = found || f.Name == name
	}
	if !found {
		return nil, &NoFunctionError{File: file, Name: name}
	}
	return src, nil
}

// Program loads the source for its interpreter's version (pyvm.Load: the
// refusal pass runs), checking Name.
func (s *Source) Program(opts pyvm.Options) (*pyvm.Program, error) {
	opts.Target = s.Name
	return pyvm.Load(s.Module, s.Interpreter.Version, opts)
}

// DecodeModule decodes a code object as the helper prints it (dump.py's
// code()), for version v: what tests that run the helper themselves use.
func DecodeModule(data []byte, v pyvm.Version) (*pyvm.Code, error) {
	var j codeJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	return decodeCode(&j, v)
}

// The helper's JSON.
type dumpJSON struct {
	Interpreter interpJSON `json:"interpreter"`
	Error       *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	Module    *codeJSON  `json:"module"`
	Functions []Function `json:"functions"`
}

type codeJSON struct {
	Name           string         `json:"name"`
	QualName       string         `json:"qualname"`
	Filename       string         `json:"filename"`
	FirstLine      int            `json:"firstlineno"`
	Flags          uint32         `json:"flags"`
	ArgCount       int            `json:"argcount"`
	PosOnlyCount   int            `json:"posonlyargcount"`
	KwOnlyCount    int            `json:"kwonlyargcount"`
	StackSize      int            `json:"stacksize"`
	Names          []string       `json:"names"`
	VarNames       []string       `json:"varnames"`
	CellVars       []string       `json:"cellvars"`
	FreeVars       []string       `json:"freevars"`
	LocalsPlus     []localJSON    `json:"localsplus"`
	Consts         []constJSON    `json:"consts"`
	Instrs         []instrJSON    `json:"instrs"`
	ExceptionTable []excEntryJSON `json:"exceptiontable"`
}

type localJSON struct {
	Name string `json:"name"`
	Kind uint8  `json:"kind"`
}

type constJSON struct {
	T     string          `json:"t"`
	V     json.RawMessage `json:"v"`
	Items []constJSON     `json:"items"`
	Code  *codeJSON       `json:"code"`
	Type  string          `json:"type"`
	Repr  string          `json:"repr"`
}

type instrJSON struct {
	Offset  int    `json:"offset"`
	Op      string `json:"op"`
	Arg     int    `json:"arg"`
	ArgName string `json:"argname"`
	ArgRepr string `json:"argrepr"`
	Line    int    `json:"line"`
	Target  *int   `json:"target"`
}

type excEntryJSON struct {
	Start  int  `json:"start"`
	End    int  `json:"end"`
	Target int  `json:"target"`
	Depth  int  `json:"depth"`
	Lasti  bool `json:"lasti"`
}

// decodeCode turns the helper's code object into pyvm's: jump targets and
// the exception table's offsets become instruction indices.
func decodeCode(j *codeJSON, v pyvm.Version) (*pyvm.Code, error) {
	c := &pyvm.Code{
		Name: j.Name, QualName: j.QualName, Filename: j.Filename, FirstLine: j.FirstLine,
		Flags: pyvm.CodeFlags(j.Flags), ArgCount: j.ArgCount, PosOnlyCount: j.PosOnlyCount,
		KwOnlyCount: j.KwOnlyCount, StackSize: j.StackSize,
		Names: j.Names, VarNames: j.VarNames, CellVars: j.CellVars, FreeVars: j.FreeVars,
	}
	for _, l := range j.LocalsPlus {
		c.LocalsPlus = append(c.LocalsPlus, pyvm.LocalVar{Name: l.Name, Kind: pyvm.LocalKind(l.Kind)})
	}
	for i := range j.Consts {
		k, err := decodeConst(&j.Consts[i], v)
		if err != nil {
			return nil, err
		}
		c.Consts = append(c.Consts, k)
	}
	index := map[int]int{}
	for i, in := range j.Instrs {
		index[in.Offset] = i
	}
	// first returns the index of the first instruction at or after offset
	first := func(off int) int {
		for i, in := range j.Instrs {
			if in.Offset >= off {
				return i
			}
		}
		return len(j.Instrs)
	}
	for _, in := range j.Instrs {
		pi := pyvm.Instr{
			Offset: in.Offset, OpName: in.Op, Op: pyvm.OpcodeByName(in.Op), Arg: in.Arg,
			ArgName: in.ArgName, ArgRepr: in.ArgRepr, Line: in.Line, Target: -1,
		}
		if in.Target != nil {
			t, ok := index[*in.Target]
			if !ok {
				return nil, fmt.Errorf("%s: %s at offset %d jumps to offset %d, where no instruction starts", c.QualName, in.Op, in.Offset, *in.Target)
			}
			pi.Target = t
		}
		c.Instrs = append(c.Instrs, pi)
	}
	for _, e := range j.ExceptionTable {
		t, ok := index[e.Target]
		if !ok {
			return nil, fmt.Errorf("%s: the exception table's handler at offset %d is not an instruction", c.QualName, e.Target)
		}
		c.ExceptionTable = append(c.ExceptionTable, pyvm.ExcEntry{
			Start: first(e.Start), End: first(e.End), Target: t, Depth: e.Depth, Lasti: e.Lasti,
		})
	}
	return c, nil
}

func decodeConst(j *constJSON, v pyvm.Version) (pyvm.Const, error) {
	switch j.T {
	case "none":
		return pyvm.Const{Kind: pyvm.ConstNone}, nil
	case "bool":
		var b bool
		if err := json.Unmarshal(j.V, &b); err != nil {
			return pyvm.Const{}, err
		}
		k := pyvm.Const{Kind: pyvm.ConstBool}
		if b {
			k.Int = 1
		}
		return k, nil
	case "int":
		var s string
		if err := json.Unmarshal(j.V, &s); err != nil {
			return pyvm.Const{}, err
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return pyvm.Const{Kind: pyvm.ConstOther, Type: "int", Str: s}, nil
		}
		return pyvm.Const{Kind: pyvm.ConstInt, Int: n}, nil
	case "str":
		var s string
		if err := json.Unmarshal(j.V, &s); err != nil {
			return pyvm.Const{}, err
		}
		return pyvm.Const{Kind: pyvm.ConstStr, Str: s}, nil
	case "tuple", "frozenset":
		k := pyvm.Const{Kind: pyvm.ConstTuple}
		if j.T == "frozenset" {
			k.Kind = pyvm.ConstFrozenSet
		}
		for i := range j.Items {
			it, err := decodeConst(&j.Items[i], v)
			if err != nil {
				return pyvm.Const{}, err
			}
			k.Items = append(k.Items, it)
		}
		return k, nil
	case "code":
		c, err := decodeCode(j.Code, v)
		if err != nil {
			return pyvm.Const{}, err
		}
		return pyvm.Const{Kind: pyvm.ConstCode, Code: c}, nil
	case "other":
		if j.Type == "float" {
			if f, err := strconv.ParseFloat(j.Repr, 64); err == nil {
				return pyvm.Const{Kind: pyvm.ConstFloat, Float: f, Str: j.Repr}, nil
			}
		}
		return pyvm.Const{Kind: pyvm.ConstOther, Type: j.Type, Str: j.Repr}, nil
	}
	return pyvm.Const{}, fmt.Errorf("unknown constant kind %q", j.T)
}
