package pyreplay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"swapcheck/scenario"
)

// File is one Python source file of UserCode.
type File struct {
	Name string // "kernels.py"
	Text string
}

// UserCode renders a scenario as a user of numba.cuda would write it: one
// file per module, each importing cuda under the module's names, its device
// functions as @cuda.jit(device=True) functions and, in the kernel's
// module, the kernel as @cuda.jit; then main.py, which launches the kernel
// as the scenario does (run it with NUMBA_ENABLE_CUDASIM=1). It is for
// reading (a bug report's reproducer): the replay script keeps its own
// harness (gen.go), one statement a line, so that every statement has an
// anchor. A use of cuda.ATTR is written as a user would use that
// attribute (cuda.local.array(...), cuda.threadIdx.x).
func UserCode(sc *scenario.Scenario) []File {
	var files []File
	for m, mod := range sc.Modules {
		files = append(files, File{Name: mod.Name + ".py", Text: moduleSource(sc, m, "").text()})
	}
	return append(files, File{Name: "main.py", Text: mainSource(sc)})
}

// FaultHook is the builtin the replay's module files call before each
// statement where the model's raise fault may fall (a use, a call, a
// branch's condition, syncthreads): it raises when the schedule says the
// statement raises there.
const FaultHook = "raise_fault_here"

// faultHookLine is the line of the replay's fault hook.
const faultHookLine = FaultHook + "()  # swapcheck: the model's raise fault may fall here"

// source is a module file being written, line by line, with the line of
// each statement's step: its own line, or with a hook the hook's line
// before it.
type source struct {
	lines []string
	at    map[*scenario.Stmt]int
	// hook is a line written before each statement that makes a step (a
	// use, a call, a branch's condition, syncthreads): the replay's fault
	// hook, or a regression test's checkpoint; "" for none
	hook string
	// fn is the function being written, when each use of cuda is followed
	// by the symptom's print (symptom.go); "" for none
	fn string
	// shared: each cuda.shared.array is followed by the print of the
	// array the thread got (symptom.go)
	shared bool
}

func (b *source) add(format string, args ...any) {
	b.lines = append(b.lines, strings.Split(strings.TrimSuffix(fmt.Sprintf(format, args...), "\n"), "\n")...)
}

func (b *source) text() string { return strings.Join(b.lines, "\n") + "\n" }

// moduleSource renders module m; hook, when not "", is written before
// each statement that makes a step.
func moduleSource(sc *scenario.Scenario, m int, hook string) *source {
	mod := sc.Modules[m]
	b := &source{at: map[*scenario.Stmt]int{}, hook: hook}
	symptom := func(fn string) {
		if symptomatic(sc) {
			b.fn = fn
		}
		b.shared = true
	}
	b.add("import numba")
	for i, name := range mod.Names {
		for _, o := range mod.Others {
			if o.At == i {
				b.add("%s", otherGlobal(o))
			}
		}
		if i == 0 && name == "cuda" {
			b.add("from numba import cuda")
		} else {
			b.add("from numba import cuda as %s", name)
		}
	}
	for _, o := range mod.Others {
		if o.At == len(mod.Names) {
			b.add("%s", otherGlobal(o))
		}
	}
	// the device functions of other modules this module's code calls,
	// imported by name, modules and functions in scenario order
	var imports []string
	calls := func(body []scenario.Stmt) {
		for _, s := range allStmts(body) {
			if s.Kind != scenario.OpCall {
				continue
			}
			if f := sc.Functions[s.Func]; f.Module != m && !slices.Contains(imports, f.Name) {
				imports = append(imports, f.Name)
			}
		}
	}
	for _, f := range sc.Functions {
		if f.Module == m {
			calls(f.Body)
		}
	}
	if m == 0 {
		calls(sc.Kernel)
	}
	// a module that imports this one, directly or not, is imported whole
	// ("import dev2", then "dev2.f()"): "from dev2 import f" would run
	// before dev2 defined f
	whole := map[int]bool{}
	for other := range sc.Modules {
		var names []string
		for _, f := range sc.Functions {
			if f.Module == other && slices.Contains(imports, f.Name) {
				names = append(names, f.Name)
			}
		}
		switch {
		case len(names) == 0:
		case importsFrom(sc, other, m):
			whole[other] = true
			b.add("import %s", sc.Modules[other].Name)
		default:
			b.add("from %s import %s", sc.Modules[other].Name, strings.Join(names, ", "))
		}
	}
	// the kernel first, then the device functions: the module's globals
	// then come in the model's order (its names, the kernel, its
	// functions), which the scan of fn_globs.items() follows
	if m == 0 {
		b.add("\n\n@%s\ndef kernel(%s):", mod.Jit(), strings.Join(sc.KernelParams(), ", "))
		symptom("kernel")
		writeBlock(b, sc, m, sc.Kernel, whole, "    ")
	}
	for i := range sc.Functions {
		if f := &sc.Functions[i]; f.Module == m {
			b.add("\n\n@%s(device=True)\n%s", mod.Jit(), f.Def())
			symptom(f.Name)
			writeBlock(b, sc, m, f.Body, whole, "    ")
		}
	}
	return b
}

// importsFrom reports whether module from's code calls, directly or
// through other modules' calls, a device function of module to.
func importsFrom(sc *scenario.Scenario, from, to int) bool {
	seen := map[int]bool{}
	var visit func(m int) bool
	visit = func(m int) bool {
		if seen[m] {
			return false
		}
		seen[m] = true
		for _, f := range sc.Functions {
			if f.Module != m {
				continue
			}
			for _, s := range allStmts(f.Body) {
				if s.Kind != scenario.OpCall {
					continue
				}
				if callee := sc.Functions[s.Func].Module; callee == to || callee != m && visit(callee) {
					return true
				}
			}
		}
		return false
	}
	return visit(from)
}

// allStmts is body's statements, those in branches and repeats included,
// each before the statements it holds.
func allStmts(body []scenario.Stmt) []scenario.Stmt {
	var out []scenario.Stmt
	for _, s := range body {
		out = append(out, s)
		out = append(out, allStmts(s.Then)...)
		out = append(out, allStmts(s.Else)...)
		out = append(out, allStmts(s.Body)...)
	}
	return out
}

// writeBlock writes body's statements at indent: a branch as "if
// cuda.threadIdx.x == 0:" with its arms, a repeat as "for _ in
// range(N):", an empty block as pass.
func writeBlock(b *source, sc *scenario.Scenario, m int, body []scenario.Stmt, whole map[int]bool, indent string) {
	if len(body) == 0 {
		b.add("%spass", indent)
	}
	for i := range body {
		s := &body[i]
		hooked := b.hook != "" && s.Steps()
		if hooked {
			b.add("%s%s", indent, b.hook)
		}
		b.at[s] = len(b.lines) + 1
		if hooked {
			b.at[s]-- // the hook's line
		}
		if arms := sc.Arms(m, *s); arms != nil {
			for _, a := range arms {
				b.add("%s%s", indent, a.Header)
				writeBlock(b, sc, m, a.Body, whole, indent+"    ")
			}
			continue
		}
		b.add("%s%s", indent, sc.UserText(m, *s, func(mod int) bool { return whole[mod] }))
		if b.fn != "" && s.Kind == scenario.OpUse {
			b.add("%s%s", indent, symptomLine(b.fn, sc.Modules[m].Names[s.Name]))
		}
		if b.shared && s.Kind == scenario.OpShared {
			b.add("%s%s", indent, sharedLine(sc.Modules[m].Names[s.Name], s.Target))
		}
	}
}

func mainSource(sc *scenario.Scenario) string {
	var b strings.Builder
	b.WriteString("# Run with NUMBA_ENABLE_CUDASIM=1 python3 main.py\n")
	fmt.Fprintf(&b, "from %s import kernel\n\n", sc.Modules[0].Name)
	raises := slices.ContainsFunc(allStmts(sc.Kernel), func(s scenario.Stmt) bool { return s.Kind == scenario.OpRaise })
	for _, f := range sc.Functions {
		raises = raises || slices.ContainsFunc(allStmts(f.Body), func(s scenario.Stmt) bool { return s.Kind == scenario.OpRaise })
	}
	launch := fmt.Sprintf("kernel[%d, %d](%s)", sc.Blocks, sc.Threads, strings.Join(sc.KernelParams(), ", "))
	if symptomatic(sc) {
		// each launch its own dynamic shared memory, which the kernel's
		// code prints (symptom.go)
		launch = fmt.Sprintf("kernel[%d, %d, 0, 4 * (launch + 1)](%s)", sc.Blocks, sc.Threads, strings.Join(sc.KernelParams(), ", "))
	}
	if len(sc.Arrays) > 0 {
		// the kernel's arrays, zeros, and what they hold afterwards
		b.WriteString("import numpy as np\n\n")
		for _, a := range sc.Arrays {
			fmt.Fprintf(&b, "%s = np.zeros(%d, dtype=np.int64)\n", a.Name, a.Size)
		}
	}
	if sc.Launches > 1 {
		fmt.Fprintf(&b, "for launch in range(%d):\n", sc.Launches)
	}
	indent := strings.Repeat("    ", min(sc.Launches-1, 1))
	if symptomatic(sc) {
		fmt.Fprintf(&b, "%sprint(\"launch\", launch + 1, \"passes\", launch + 1, \"int32 of dynamic shared memory\")\n", indent)
	}
	if raises {
		fmt.Fprintf(&b, "%stry:\n%s    %s\n%sexcept RuntimeError as e:  # the kernel's own failure\n%s    print(\"the launch failed:\", e)\n",
			indent, indent, launch, indent, indent)
	} else {
		fmt.Fprintf(&b, "%s%s\n", indent, launch)
	}
	for _, a := range sc.Arrays { // what the kernel left in them
		fmt.Fprintf(&b, "print(\"%s =\", %s)\n", a.Name, a.Name)
	}
	return b.String()
}

// otherGlobal is the line that makes a module global not bound to cuda:
// a whole number as itself, anything else as a string that names what it
// stands for (a replay runs where numpy may be missing; the swap's scan
// only passes over the global, so its value does not matter).
func otherGlobal(o scenario.Other) string {
	if _, err := strconv.Atoi(o.Value); err == nil {
		return o.Name + " = " + o.Value
	}
	return fmt.Sprintf("%s = %q  # stands for %s: a global that is not cuda", o.Name, o.Value, o.Value)
}
