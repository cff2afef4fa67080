package scenario

import (
	"fmt"
	"strings"
)

// What a statement is in Python, for those that render a scenario as a
// user's code or replay it (pyreplay): which statements take a step of
// their own, which load the module's cuda global, how a user writes each,
// and the arms of the compound ones. These and the parser and printer
// (scenario.go) are the only places outside model's statement table
// (model/stmts.go) that switch on a statement's kind.

// Steps reports whether s runs as a step of its own where a fault may
// fall before it: a use, a call, syncthreads, a branch's condition; a
// raise (the kernel's own exception) and a repeat (its body's statements
// step) do not.
func (s Stmt) Steps() bool {
	switch s.Kind {
	case OpUse, OpCall, OpSync, OpIf, OpAtomic, OpShared, OpStore, OpLoad:
		return true
	}
	return false
}

// ReadsCuda reports whether s's step loads a cuda global of its module
// (s.Name): a use, syncthreads (cuda.syncthreads()) and a branch's
// condition (cuda.threadIdx.x); a call loads the function instead.
func (s Stmt) ReadsCuda() bool {
	switch s.Kind {
	case OpUse, OpSync, OpIf, OpAtomic, OpShared:
		return true
	}
	return false
}

// Arm is one arm of a compound statement as Python writes it: its header
// line and the statements under it.
type Arm struct {
	Header string
	Body   []Stmt
}

// Arms returns the arms of a compound statement of module mod (a branch:
// "if cuda.threadIdx.x == 0:" and, when it has one, "else:"; a repeat:
// "for _ in range(N):"), or nil for a simple one.
func (sc *Scenario) Arms(mod int, s Stmt) []Arm {
	switch s.Kind {
	case OpIf:
		arms := []Arm{{sc.PythonText(mod, s), s.Then}}
		if len(s.Else) > 0 {
			arms = append(arms, Arm{"else:", s.Else})
		}
		return arms
	case OpRepeat:
		return []Arm{{sc.PythonText(mod, s), s.Body}}
	}
	return nil
}

// UserText is simple statement s of module mod as a user of numba.cuda
// writes it: a use as that attribute is used (cuda.local.array(...),
// cuda.threadIdx.x), a call through its module where qualified says the
// callee's module is imported whole, syncthreads, and the kernel's own
// exception.
func (sc *Scenario) UserText(mod int, s Stmt, qualified func(module int) bool) string {
	names := sc.Modules[mod].Names
	switch s.Kind {
	case OpUse:
		name := names[s.Name]
		if s.Rest != "" || s.Target != "" {
			return s.useText(name) // as the scenario writes it
		}
		switch s.Attr {
		case "local", "shared":
			return fmt.Sprintf("%c = %s.%s.array(1, numba.int32)", s.Attr[0], name, s.Attr)
		case "threadIdx":
			return fmt.Sprintf("i = %s.threadIdx.x", name)
		case "blockIdx":
			return fmt.Sprintf("b = %s.blockIdx.x", name)
		}
		return name + "." + s.Attr
	case OpCall:
		f := sc.Functions[s.Func]
		if f.Module != mod && qualified(f.Module) {
			return sc.Modules[f.Module].Name + "." + sc.PythonText(mod, s)
		}
		return sc.PythonText(mod, s)
	case OpSync:
		return names[0] + ".syncthreads()"
	case OpRaise:
		return `raise RuntimeError("the kernel fails")`
	case OpAtomic, OpShared, OpStore, OpLoad:
		return sc.PythonText(mod, s)
	}
	return "pass"
}

// Unroll visits, in order, the statements thread tid of block bid runs of
// body: a branch's condition and then the arm the thread takes, a repeat's body as many
// times as it says, and every other statement as it is (raises included).
// With tid < 0 (no thread in particular) it stops after the first branch's
// condition. It returns whether visit stopped it (visit returns true to
// stop).
func Unroll(body []Stmt, tid, bid int, visit func(*Stmt) bool) bool {
	for i := range body {
		s := &body[i]
		switch s.Kind {
		case OpIf:
			if visit(s) || tid < 0 {
				return true
			}
			arm := s.Else
			if s.Cond.Holds(tid, bid) {
				arm = s.Then
			}
			if Unroll(arm, tid, bid, visit) {
				return true
			}
		case OpRepeat:
			for range s.Times {
				if Unroll(s.Body, tid, bid, visit) {
					return true
				}
			}
		default:
			if visit(s) {
				return true
			}
		}
	}
	return false
}

// Def is function f's def line: "def f1():", "def square(x):".
func (f Function) Def() string { return "def " + f.Call(f.Params) + ":" }

// Call is a Python call of f with args: "f1()", "square(i)".
func (f Function) Call(args []string) string { return f.Name + "(" + strings.Join(args, ", ") + ")" }

// Jit is how module m's code names numba.cuda.jit for its decorators: its
// first name bound to cuda, or numba.cuda for a module that binds none
// (it imports numba, as every rendered module does).
func (m Module) Jit() string {
	if len(m.Names) == 0 {
		return "numba.cuda.jit"
	}
	return m.Names[0] + ".jit"
}
