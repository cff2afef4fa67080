package pyreplay

import (
	"fmt"
	"slices"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
)

// pyFile is a scenario module written out as a real Python file for the
// script's --target numba.
type pyFile struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// numbaGen writes the scenario's modules as a user would (for --target
// numba): each binds the real cuda module under its names first, in the
// model's order, then defines the kernel (module 0) and its device
// functions as real @cuda.jit functions, one statement per line. The
// interpreter adds its own globals (__name__, ...) and the imports add
// some; none of them is ever bound to cuda, and the script's scan filter
// folds their passes of the scan into the step before (docs/replay.md).
//
// A statement's anchor is its line's first opcode, the LOAD_GLOBAL of the
// module's cuda name (a use) or of the device function (a call).
type numbaGen struct {
	files   []pyFile
	stmts   map[string][]anchor // code name: anchor of each statement
	anchors []anchor
}

func newNumbaGen(sc *scenario.Scenario) *numbaGen {
	n := &numbaGen{stmts: map[string][]anchor{}}
	for m, mod := range sc.Modules {
		var lines []string
		emit := func(l string) { lines = append(lines, l) }
		emit(fmt.Sprintf("# Module %s of the scenario, written by swapcheck's pyreplay.", mod.Name))
		for _, name := range mod.Names {
			if name == "cuda" {
				emit("from numba import cuda")
			} else {
				emit("from numba import cuda as " + name)
			}
		}
		emit("import numpy as np")
		if m == 0 {
			for _, s := range sc.Kernel {
				if s.Kind != scenario.OpCall {
					continue
				}
				f := sc.Functions[s.Func]
				imp := fmt.Sprintf("from %s import %s", sc.Modules[f.Module].Name, f.Name)
				if f.Module != 0 && !slices.Contains(lines, imp) {
					emit(imp)
				}
			}
		}
		jit := "@" + mod.Names[0] + ".jit"
		body := func(deco, name string, stmts []scenario.Stmt) {
			emit("")
			emit("")
			emit(deco)
			emit("def " + name + "():")
			if len(stmts) == 0 {
				emit("    pass")
			}
			for _, s := range stmts {
				a := anchor{Tag: "mod:" + mod.Name, Ops: []string{"LOAD_GLOBAL"}}
				switch s.Kind {
				case scenario.OpUse:
					a.Use = mod.Names[s.Name]
					emit("    " + useStmt(a.Use, s.Attr))
				case scenario.OpCall:
					emit(fmt.Sprintf("    %s()", sc.Functions[s.Func].Name))
				default: // refused before: syncthreads, raise
					emit("    pass")
				}
				a.Line = len(lines)
				n.stmts[name] = append(n.stmts[name], a)
				n.anchors = append(n.anchors, a)
			}
		}
		if m == 0 {
			body(jit, "kernel", sc.Kernel)
		}
		for _, f := range sc.Functions {
			if f.Module == m {
				body(jit+"(device=True)", f.Name, f.Body)
			}
		}
		n.files = append(n.files, pyFile{Name: mod.Name, Source: strings.Join(lines, "\n") + "\n"})
	}
	return n
}

// useStmt is the line a kernel writes to use cuda.<attr>: an array for
// local and shared, the x of an index or a dimension, the bare attribute
// otherwise. Its first opcode loads the name, the model's use step.
func useStmt(name, attr string) string {
	switch attr {
	case "local", "shared":
		return fmt.Sprintf("a = %s.%s.array(1, np.float32)", name, attr)
	case "threadIdx", "blockIdx", "blockDim", "gridDim":
		return fmt.Sprintf("i = %s.%s.x", name, attr)
	}
	return fmt.Sprintf("x = %s.%s", name, attr)
}

// stmtAnchor is the anchor of statement k of code name.
func (n *numbaGen) stmtAnchor(name string, k int) anchor {
	if k >= len(n.stmts[name]) {
		return anchor{}
	}
	return n.stmts[name][k]
}

// Simulator steps (kernel.py) by key; the script finds each key's line in
// the installed kernel.py by its text (docs/replay.md lists them).
const (
	simSetContext   = "set-context"
	simResetContext = "reset-context"
	simStart        = "start"
	simPollDone     = "poll-done"
	simPollAbort    = "poll-abort"
	// the launch's "with swapped_cuda_module(self.fn, fake_cuda_module):"
	// in FakeCUDAKernel.__call__: no step, an interrupt's landing
	simSwapWith = "swap-with"
	// _push_kernel_context's "yield": no step, an interrupt's landing
	simContextYield = "context-yield"
)

var simKeys = []string{simSetContext, simResetContext, simStart, simPollDone, simPollAbort}

// simAnchor is the anchor on real numba of a step of the simulator's own
// code, by the model's text of it.
func simAnchor(text string) (anchor, bool) {
	key := ""
	switch {
	case text == "_kernel_context = mod", text == model.FakeText:
		key = simSetContext
	case text == "_kernel_context = None", text == model.ReturnText:
		key = simResetContext
	case strings.HasPrefix(text, "t.start()"):
		key = simStart
	case strings.HasPrefix(text, "livethreads is empty"):
		key = simPollDone
	case strings.HasPrefix(text, "t_other.abort"):
		key = simPollAbort
	default:
		return anchor{}, false
	}
	return anchor{Tag: "sim", Key: key}, true
}
