package pyvm_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"swapcheck/pysource"
	"swapcheck/pyvm"
)

// GoResult is the Go interpreter's run of a case, shaped as PyResult.
type GoResult struct {
	Setup   []string
	Globals any
	Ret     any
	Exc     []string
	Steps   []StepResult
	// Ops counts the opcodes the run executed (for coverage).
	Ops map[string]int
	// Fault is what the interpreter does not model, if it met any.
	Fault string
}

// maxCaseSteps bounds a case's run (the cases have no endless loops).
const maxCaseSteps = 200000

// runGo runs case c, compiled by CPython v (the harness's module), in the
// Go interpreter.
func runGo(v pyvm.Version, py PyResult, c Case, opts pyvm.Options) (*GoResult, error) {
	mod, err := pysource.DecodeModule(py.Module, v)
	if err != nil {
		return nil, err
	}
	opts.Target = c.Call
	opts.ModuleName = "case"
	p, err := pyvm.Load(mod, v, opts)
	if err != nil {
		return nil, err
	}
	s := p.NewState(2)
	res := &GoResult{Ops: map[string]int{}}
	var info pyvm.StepInfo
	if err := s.RunModuleObserved(func(info *pyvm.StepInfo) {
		if info.Code != nil {
			res.Ops[info.Code.Instrs[info.Instr].OpName]++
		}
	}); err != nil {
		if s.Fault() != "" {
			res.Fault = s.Fault()
			return res, nil
		}
		msg := strings.TrimPrefix(err.Error(), pyvm.ErrBodyRaised.Error()+": ")
		typ, m, _ := strings.Cut(msg, ": ")
		res.Setup = []string{typ, m}
		return res, nil
	}
	s.Freeze()
	run := func(t int) (pyvm.Value, pyvm.Value, bool) {
		for n := 0; s.Status(t) == pyvm.Running; n++ {
			if n > maxCaseSteps {
				res.Fault = fmt.Sprintf("did not finish in %d steps", maxCaseSteps)
				return pyvm.Value{}, pyvm.Value{}, false
			}
			p.Step(s, t, &info)
			if info.Code != nil {
				res.Ops[info.Code.Instrs[info.Instr].OpName]++
			}
			if info.Fault != "" {
				res.Fault = info.Fault
				return pyvm.Value{}, pyvm.Value{}, false
			}
			if info.Blocked {
				res.Fault = "blocked at " + info.Where()
				return pyvm.Value{}, pyvm.Value{}, false
			}
		}
		v, exc := s.Result(t)
		return v, exc, true
	}
	globals := func(extra pyvm.Value) (any, *pyvm.Renderer) {
		r := pyvm.NewRenderer(s)
		var names []any
		for _, kv := range s.DictItems(s.Module()) {
			name := p.String(kv[0])
			if strings.HasPrefix(name, "__") {
				continue
			}
			names = append(names, []any{name, r.Render(kv[1])})
		}
		if names == nil {
			names = []any{}
		}
		return names, r
	}
	excOf := func(exc pyvm.Value) []string {
		msg := s.ExcString(exc)
		typ := s.ExcType(exc)
		return []string{typ, strings.TrimPrefix(strings.TrimPrefix(msg, typ), ": ")}
	}
	if c.Call != "" {
		f, _ := s.Global(c.Call)
		s.Begin(0, f)
		v, exc, ok := run(0)
		if !ok {
			return res, nil
		}
		g, r := globals(v)
		res.Globals = g
		if exc.K != pyvm.KindUndef {
			res.Exc = excOf(exc)
		} else {
			res.Ret = r.Render(v)
		}
	}
	slots := map[string]pyvm.Value{}
	for _, st := range c.Steps {
		var sr StepResult
		var v, exc pyvm.Value
		ok := true
		switch st[0] {
		case "call":
			f, _ := s.Global(st[1].(string))
			var args []pyvm.Value
			for _, a := range st[3:] {
				args = append(args, slots[a.(string)])
			}
			s.Begin(0, f, args...)
			v, exc, ok = run(0)
			if ok && exc.K == pyvm.KindUndef {
				slots[st[2].(string)] = v
				v = pyvm.Value{}
			}
		case "enter":
			if err := s.Enter(0, slots[st[1].(string)]); err != nil {
				return nil, err
			}
			v, exc, ok = run(0)
			if ok && exc.K == pyvm.KindUndef {
				slots[st[2].(string)] = v
				v = pyvm.Value{}
			}
		case "exit":
			e := pyvm.None
			if st[2] != nil {
				e, _ = s.NewException(0, st[2].(string))
			}
			if err := s.Exit(0, slots[st[1].(string)], e); err != nil {
				return nil, err
			}
			v, exc, ok = run(0)
		}
		if !ok {
			return res, nil
		}
		g, r := globals(v)
		sr.Globals = g
		if exc.K != pyvm.KindUndef {
			sr.Exc = excOf(exc)
		} else if st[0] == "exit" {
			sr.Value = r.Render(v)
		}
		res.Steps = append(res.Steps, sr)
	}
	return res, nil
}

// diff compares CPython's and the Go interpreter's results: "" when they
// agree.
func diff(py PyResult, gr *GoResult) string {
	if gr.Fault != "" {
		return "the Go interpreter faulted: " + gr.Fault
	}
	var out []string
	cmp := func(what string, a, b any) {
		if !reflect.DeepEqual(norm(a), norm(b)) {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			out = append(out, fmt.Sprintf("%s:\n  cpython: %s\n  pyvm:    %s", what, ja, jb))
		}
	}
	cmp("module body exception", py.Setup, gr.Setup)
	cmp("globals", py.Globals, gr.Globals)
	cmp("return value", py.Ret, gr.Ret)
	cmp("exception", py.Exc, gr.Exc)
	if len(py.Steps) != len(gr.Steps) {
		out = append(out, fmt.Sprintf("steps: cpython ran %d, pyvm %d", len(py.Steps), len(gr.Steps)))
	} else {
		for i := range py.Steps {
			cmp(fmt.Sprintf("step %d value", i), py.Steps[i].Value, gr.Steps[i].Value)
			cmp(fmt.Sprintf("step %d exception", i), py.Steps[i].Exc, gr.Steps[i].Exc)
			cmp(fmt.Sprintf("step %d globals", i), py.Steps[i].Globals, gr.Steps[i].Globals)
		}
	}
	return strings.Join(out, "\n")
}

// norm passes a value through JSON, so that both sides compare as
// decoded JSON (numbers as float64, nil slices as null).
func norm(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}
