package pyreplay

import (
	"fmt"
	"slices"
	"strings"

	"swapcheck/scenario"
)

// hostModule is the module of the host's program the script writes.
const hostModule = "swapcheck_host"

// pyFile is a Python file the script writes before it runs: a scenario
// module, the host's program, or a file of the stand-in numba.
type pyFile struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// files are the scenario's modules as a user writes them (UserCode's,
// with a fault hook before each statement where the model's raise fault
// may fall, when the scenario has it), the host's program, and where each
// statement's step begins.
type files struct {
	files []pyFile
	// at is each statement's anchor: its line's first instruction (a
	// LOAD_GLOBAL: of cuda, of the callee, or of the fault hook)
	at map[*scenario.Stmt]anchor
	// calls are the anchors of the host program's device calls, in order,
	// and launches the lines of its launches
	calls    []anchor
	launches []int
	anchors  []anchor
}

func newFiles(sc *scenario.Scenario) *files {
	fs := &files{at: map[*scenario.Stmt]anchor{}}
	hook := ""
	if sc.Faults.Has(scenario.FaultRaise) {
		hook = faultHookLine
	}
	for m, mod := range sc.Modules {
		src := moduleSource(sc, m, hook)
		tag := "mod:" + mod.Name
		for s, line := range src.at {
			if !s.Steps() { // raise, repeat: no step of their own
				continue
			}
			a := anchor{Tag: tag, Line: line, Ops: []string{"LOAD_GLOBAL"}}
			if s.ReadsCuda() {
				a.Use = mod.Names[s.Name]
			}
			if e := elemOf(s); e != nil {
				a.Elem = e
				if hook == "" {
					a.Ops = []string{e.firstOp()}
				}
			}
			fs.at[s] = a
		}
		fs.files = append(fs.files, pyFile{Name: mod.Name + ".py", Source: src.text()})
	}
	fs.hostProgram(sc)
	// every statement anchor, in a defined order
	for _, f := range fs.files {
		tag := "mod:" + strings.TrimSuffix(f.Name, ".py")
		var lines []anchor
		for _, a := range fs.at {
			if a.Tag == tag {
				lines = append(lines, a)
			}
		}
		slices.SortFunc(lines, func(a, b anchor) int { return a.Line - b.Line })
		fs.anchors = append(fs.anchors, slices.CompactFunc(lines, func(a, b anchor) bool { return a.Line == b.Line })...)
	}
	fs.anchors = append(fs.anchors, fs.calls...)
	return fs
}

// hostProgram writes the host's program, which every host thread runs:
// its launches (kernel[blocks, threads]()) and device calls in order,
// each caught when it raises, as a test runner catches a test's error
// and goes on (scenario.Scenario.Host).
func (fs *files) hostProgram(sc *scenario.Scenario) {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	add("# The host's program, written by swapcheck's pyreplay: each host thread runs")
	add("# host(), which catches what a launch or a device call raises and goes on.")
	add("from %s import kernel", sc.Modules[0].Name)
	if len(sc.Arrays) > 0 {
		// the kernel's arrays, made once: every launch passes them
		add("try:")
		add("    import numpy as np")
		add("except ImportError:  # swapcheck's stand-in numba runs without numpy")
		add("    from numba.cuda.simulator.kernelapi import np")
		for _, a := range sc.Arrays {
			add("%s = np.zeros(%d, dtype=np.int64)", a.Name, a.Size)
		}
	}
	var imported []string
	for _, hs := range sc.HostProgram() {
		if hs.Kind != scenario.HostCall {
			continue
		}
		if f := sc.Functions[hs.Func]; !slices.Contains(imported, f.Name) {
			imported = append(imported, f.Name)
			add("from %s import %s", sc.Modules[f.Module].Name, f.Name)
		}
	}
	add("")
	add("")
	add("def host(caught):")
	launch := 0
	for _, hs := range sc.HostProgram() {
		if hs.Kind != scenario.HostCall && symptomatic(sc) {
			add("    %s", launchLine(launch+1))
		}
		add("    try:")
		if hs.Kind == scenario.HostCall {
			add("        %s", sc.Functions[hs.Func].Call(hs.Args))
			fs.calls = append(fs.calls, anchor{Tag: "mod:" + hostModule, Line: len(lines), Ops: []string{"LOAD_GLOBAL"}})
		} else {
			launch++
			add("        kernel[%s](%s)", launchConfig(sc, launch), strings.Join(sc.KernelParams(), ", "))
			fs.launches = append(fs.launches, len(lines))
		}
		add("    except BaseException as e:")
		add("        caught(e)")
	}
	fs.files = append(fs.files, pyFile{Name: hostModule + ".py", Source: strings.Join(lines, "\n") + "\n"})
}

// hostCall is the function the host program's h-th device call (from 0)
// calls; ok false past its last.
func (fs *files) hostCall(sc *scenario.Scenario, h int) (scenario.Function, bool) {
	if h >= len(fs.calls) {
		return scenario.Function{}, false
	}
	n := 0
	for _, hs := range sc.HostProgram() {
		if hs.Kind != scenario.HostCall {
			continue
		}
		if n == h {
			return sc.Functions[hs.Func], true
		}
		n++
	}
	return scenario.Function{}, false
}

// flatten is one run of body by the thread with index tid (-1: a host)
// of block bid, as the model compiles it (model.Program's flatten): its
// branches decided, its repeats unrolled, a host stopping at the first
// branch's condition (which raises there). Raise statements are left out: they
// run in the step before them.
func flatten(body []scenario.Stmt, tid, bid int) []*scenario.Stmt {
	var out []*scenario.Stmt
	scenario.Unroll(body, tid, bid, func(s *scenario.Stmt) bool {
		if s.Steps() {
			out = append(out, s)
		}
		return false
	})
	return out
}
