package pyreplay

import (
	"fmt"
	"slices"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
)

// gen writes the scenario as Python (the kernel, the device functions and
// the host's launch loop, compiled in the script as "<scenario>") and
// remembers the line of every statement, so that each model step of
// theirs has its anchor. Every kernel or device statement is one line
// that begins with a call of a method of _sc (the script's harness): its
// LOAD_METHOD is the step's anchor, and the loads of cuda or of
// _kernel_context that follow it on the line fall in the same turn.
type gen struct {
	src     strings.Builder
	line    int
	stmts   map[string][]int // code name: line of each statement
	host    map[string]anchor
	swapAt  int // the line of the launch's "with swapped_cuda_module(kernel, fake):"
	anchors []anchor
	attrs   []string
}

func newGen(sc *scenario.Scenario) *gen {
	g := &gen{stmts: map[string][]int{}, host: map[string]anchor{}}
	g.emit("# The scenario as Python, written by swapcheck's pyreplay. Every")
	g.emit("# statement is one line; _sc is the replay harness (a builtin).")
	g.body("kernel", sc, 0, sc.Kernel)
	for _, f := range sc.Functions {
		g.body(f.Name, sc, f.Module, f.Body)
	}
	g.emit("")
	g.emit("def host():")
	g.emit("    # numba's simulator: FakeCUDAKernel.__call__ and BlockManager.run")
	g.emit("    global _kernel_context")
	g.emit("    for launch in range(1, LAUNCHES + 1):")
	g.emit("        fake = _sc.fake(launch)")
	g.hostAnchor("_kernel_context = mod", "        _kernel_context = fake", "STORE_GLOBAL")
	g.emit("        try:")
	g.emit("            with swapped_cuda_module(kernel, fake):")
	g.swapAt = g.line
	g.emit("                for block in range(BLOCKS):")
	g.emit("                    threads = _sc.threads(launch, block)")
	g.emit("                    for t in threads:")
	g.hostAnchor("t.start()", "                        t.start()", "LOAD_METHOD")
	g.emit("                    while True:")
	g.hostAnchor("poll", "                        if _sc.poll(threads):", "LOAD_GLOBAL")
	g.emit("                            break")
	g.emit("                        _sc.spin()")
	g.emit("        except BaseException as e:")
	g.emit("            _sc.host_raised(e)")
	g.hostAnchor("_kernel_context = None", "        _kernel_context = None", "STORE_GLOBAL")
	return g
}

func (g *gen) emit(line string) {
	g.src.WriteString(line + "\n")
	g.line++
}

func (g *gen) hostAnchor(key, line, op string) {
	g.emit(line)
	a := anchor{Tag: "scen", Line: g.line, Ops: []string{op}}
	g.host[key] = a
	g.anchors = append(g.anchors, a)
}

func (g *gen) body(name string, sc *scenario.Scenario, mod int, body []scenario.Stmt) {
	g.emit("")
	g.emit(fmt.Sprintf("def %s():", name))
	if len(body) == 0 {
		g.emit("    pass")
	}
	for _, s := range body {
		var text string
		switch s.Kind {
		case scenario.OpUse:
			text = fmt.Sprintf("    _sc.use(%s.%s)", sc.Modules[mod].Names[s.Name], s.Attr)
			if !slices.Contains(g.attrs, s.Attr) {
				g.attrs = append(g.attrs, s.Attr)
			}
		case scenario.OpCall:
			text = fmt.Sprintf("    _sc.call(%d)  # %s()", s.Func, sc.Functions[s.Func].Name)
		default: // refused before: syncthreads, raise
			text = "    pass"
		}
		g.emit(text)
		g.stmts[name] = append(g.stmts[name], g.line)
		g.anchors = append(g.anchors, anchor{Tag: "scen", Line: g.line, Ops: []string{"LOAD_METHOD"}})
	}
}

// stmtAnchor is the anchor of statement k of code name.
func (g *gen) stmtAnchor(name string, k int) anchor {
	lines := g.stmts[name]
	if k >= len(lines) {
		return anchor{}
	}
	return anchor{Tag: "scen", Line: lines[k], Ops: []string{"LOAD_METHOD"}}
}

// hostLine is the anchor of a step of the simulator's own code (kernel.py)
// by its text.
func (g *gen) hostLine(text string) (anchor, bool) {
	switch {
	case text == "_kernel_context = mod", text == "_kernel_context = None":
		a, ok := g.host[text]
		return a, ok
	// kernel.py patched for proposed: the launch's first and last host
	// steps touch no shared context; the harness's own lines stand for
	// them (its _kernel_context is read by no variant's swap, and not by
	// its device calls, which the harness makes only from the host)
	case text == model.FakeText:
		return g.host["_kernel_context = mod"], true
	case text == model.ReturnText:
		return g.host["_kernel_context = None"], true
	case strings.HasPrefix(text, "t.start()"):
		return g.host["t.start()"], true
	case strings.HasPrefix(text, "livethreads is empty"), strings.HasPrefix(text, "t_other.abort"):
		return g.host["poll"], true
	}
	return anchor{}, false
}
