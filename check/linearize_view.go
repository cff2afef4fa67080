package check

import (
	"fmt"
	"io"

	"github.com/anishathalye/porcupine"

	"swapcheck/model"
	"swapcheck/sched"
)

// VisualizeLinearizability replays r's counterexample with its history
// recorded and checks that history against the sequential specification
// (Linearizable). When porcupine finds it not linearizable, it writes
// porcupine's own visualization of it (porcupine.Visualize: one HTML page,
// its script, style and data inline) to w and returns porcupine.Illegal;
// otherwise it writes nothing. A report without a counterexample has an
// empty history, which is linearizable.
//
// The page names each operation by its module ("enter dev1", "read
// dev1.cuda -> real"), gives its thread and steps in its tooltip, and
// annotates the failing step's read with the violation kind. porcupine
// numbers its clients by thread number: client 0 is the host.
//
// On a counterexample the history fails exactly when some thread read
// the real module inside its own call (use-saw-real): every other
// violation stops its execution with a history porcupine accepts (see
// TestLinearizabilityOfCounterexamples).
func VisualizeLinearizability(w io.Writer, r *Report) (porcupine.CheckResult, error) {
	h, stepOf, err := historySteps(r.Program, r.Result.Schedule)
	if err != nil {
		return "", fmt.Errorf("internal: the counterexample does not replay: %v", err)
	}
	ops := Operations(h)
	for i := range ops {
		ops[i].Metadata = opPlace(r.Program, ops[i], stepOf)
	}
	res, info := porcupine.CheckOperationsVerbose(swapSpec, ops, 0)
	if res != porcupine.Illegal {
		return res, nil
	}
	if f := r.Result.Failure; f != nil && f.Thread >= 0 && len(h.Marks) > 0 {
		last := int64(len(h.Marks) - 1)
		info.AddAnnotations([]porcupine.Annotation{{ClientId: int(f.Thread), Start: last, End: last,
			Description: "!! " + f.Kind, Details: f.Message, BackgroundColor: "#f4b6b6"}})
	}
	return res, porcupine.Visualize(viewSpec(r.Program), info, w)
}

// historySteps replays a schedule with its history recorded, and says for
// each mark the step (from 1) that made it.
func historySteps(p *model.Program, schedule []sched.ThreadID) (*model.History, []int, error) {
	w := model.New(p)
	w.History = &model.History{}
	var stepOf []int
	for i, t := range schedule {
		if int(t) < 0 || int(t) >= w.NumThreads() || w.Status(int(t)) != sched.Runnable {
			return nil, nil, fmt.Errorf("step %d: thread %d cannot run", i+1, t)
		}
		w.Step(int(t))
		for len(stepOf) < len(w.History.Marks) {
			stepOf = append(stepOf, i+1)
		}
	}
	return w.History, stepOf, nil
}

// opPlace is an operation's tooltip: its thread and the steps of its call
// and return (times are mark indices; see Operations).
func opPlace(p *model.Program, op porcupine.Operation, stepOf []int) string {
	name := p.ThreadName(op.ClientId)
	call := stepOf[op.Call]
	switch {
	case op.Return >= int64(len(stepOf)):
		return fmt.Sprintf("%s, step %d; never returned", name, call)
	case stepOf[op.Return] == call:
		return fmt.Sprintf("%s, step %d", name, call)
	}
	return fmt.Sprintf("%s, steps %d-%d", name, call, stepOf[op.Return])
}

// viewSpec is swapSpec with the scenario's names, for people: the checks
// and steps are swapSpec's own.
func viewSpec(p *model.Program) porcupine.Model {
	m := swapSpec
	module := func(in linOp) string { return p.Scenario.Modules[in.module].Name }
	m.DescribeOperation = func(input, output any) string {
		in := input.(linOp)
		switch in.kind {
		case model.EnterCall:
			return "enter " + module(in)
		case model.ExitCall:
			return "exit " + module(in)
		}
		if output.(bool) {
			return "read " + module(in) + ".cuda -> swapped"
		}
		return "read " + module(in) + ".cuda -> real"
	}
	m.DescribeState = func(state any) string { return fmt.Sprintf("%d inside", state.(int)) }
	m.DescribeOperationMetadata = func(info any) string {
		s, _ := info.(string)
		return s
	}
	return m
}
