package pyreplay

import (
	"fmt"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
)

// The simulator's other shared state (issue 30): the sub-steps of an
// atomic and of a shared.array run in kernelapi.py (FakeCUDAAtomic's
// methods, FakeCUDAShared.array), whose lines differ between numba-cuda's
// HEAD, numba 0.56.4 and the stand-in. A step names its line by the
// method and the line's text, as the model's event gives them (model/
// memory.go's atomicLine), and the script finds it in the kernelapi.py it
// runs (replay.py's api_line).

// apiStep is where a model step in kernelapi.py begins: in method Func
// (FakeCUDAAtomic.add), the line whose stripped text is Text (a prefix
// when Prefix), at its first instruction (Role "first"), at its
// STORE_SUBSCR ("store"), or at the first instruction of the method's
// with statement's normal exit ("exit": the lock's release; Text unused).
type apiStep struct {
	Func   string `json:"func"`
	Text   string `json:"text"`
	Prefix bool   `json:"prefix,omitempty"`
	Role   string `json:"role"`
}

// apiStepOf reads the step of an event in kernelapi.py from its text,
// "FakeCUDAAtomic.add: old = array[index]" (model/memory.go).
func apiStepOf(text string) (*apiStep, error) {
	fn, line, ok := strings.Cut(text, ": ")
	if !ok || !strings.HasPrefix(fn, "FakeCUDAAtomic.") && fn != "FakeCUDAShared.array" {
		return nil, fmt.Errorf("no step of kernelapi.py reads %q", text)
	}
	s := &apiStep{Func: fn, Role: "first"}
	switch {
	case strings.HasPrefix(line, "with "):
		// the lock's name differs between versions (compare_and_swap's
		// is caslock in 0.56.4, compare_and_swaplock at HEAD): a method
		// has one with statement
		s.Text, s.Prefix = "with ", true
	case strings.HasPrefix(line, "return "):
		s.Role = "exit"
	case strings.HasSuffix(line, "  # its read of array[index]"):
		s.Text = strings.TrimSuffix(line, "  # its read of array[index]")
	case line == "old = array[index]", line == "loaded = array[index]", strings.HasPrefix(fn, "FakeCUDAShared."):
		s.Text = line
	default: // the store: array[index] = ..., array[index] += ...
		s.Text, s.Role = line, "store"
	}
	return s, nil
}

// elemStep is a store to or a load from an array: the local name the
// kernel holds it by, the shared.array call site that allocated it (-1:
// a kernel argument, whose stores lost-update judges, not stale-read),
// the index.
type elemStep struct {
	Store  bool   `json:"store"`
	Target string `json:"target"`
	Site   int    `json:"site"`
	Index  int    `json:"index"`
}

// elemOf is s's elemStep, nil for a statement that is no store or load.
func elemOf(s *scenario.Stmt) *elemStep {
	if s.Kind != scenario.OpStore && s.Kind != scenario.OpLoad {
		return nil
	}
	return &elemStep{Store: s.Kind == scenario.OpStore, Target: s.Target, Site: s.Site, Index: s.Index}
}

// firstOp is the first instruction of the statement's line (3.11 to
// 3.13): s[i] = v loads v first, x = s[i] the array.
func (e *elemStep) firstOp() string {
	if e.Store {
		return "LOAD_CONST"
	}
	return "LOAD_FAST"
}

// memoryData is what the script's judge of the simulator's other races
// needs: the kernel's arrays (the host program passes them, and the judge
// reads what they hold at the end) and, per model thread, the atomics and
// plain stores to them it runs in order (none for a host), against which
// it checks what each atomic returned.
type memoryData struct {
	Arrays  []arrayData    `json:"arrays"`
	Atomics [][]atomicData `json:"atomics"`
}

type arrayData struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

// atomicData is one atomic call: method Op on Array[Index] with Val (and
// Cmp: compare_and_swap's and cas's old); or Op "store", a plain
// Array[Index] = Val.
type atomicData struct {
	Op    string `json:"op"`
	Array string `json:"array"`
	Index int    `json:"index"`
	Val   int    `json:"val"`
	Cmp   int    `json:"cmp"`
}

// memoryOf is p's memoryData, nil when its scenario has no arrays or
// shared arrays.
func memoryOf(p *model.Program, infos []threadInfo) *memoryData {
	sc := p.Scenario
	if !sc.HasMemory() && len(sc.Arrays) == 0 {
		return nil
	}
	md := &memoryData{Arrays: []arrayData{}, Atomics: make([][]atomicData, len(infos))}
	for _, a := range sc.Arrays {
		md.Arrays = append(md.Arrays, arrayData{Name: a.Name, Size: a.Size})
	}
	for t, info := range infos {
		md.Atomics[t] = []atomicData{}
		if info.host {
			continue // the scenario's validation keeps atomics in the kernel
		}
		for _, s := range flatten(sc.Kernel, info.tid, info.block) {
			switch {
			case s.Kind == scenario.OpAtomic:
				md.Atomics[t] = append(md.Atomics[t], atomicData{
					Op: s.Atomic.String(), Array: sc.Arrays[s.Array].Name, Index: s.Index, Val: s.Value, Cmp: s.Cmp,
				})
			case s.Kind == scenario.OpStore && s.Site < 0:
				// a plain store to a kernel array: in the element's
				// history, returning nothing
				md.Atomics[t] = append(md.Atomics[t], atomicData{Op: "store", Array: s.Target, Index: s.Index, Val: s.Value})
			}
		}
	}
	return md
}
