package check

import (
	"fmt"
	"math"

	"github.com/anishathalye/porcupine"

	"swapcheck/model"
	"swapcheck/sched"
)

// The sequential specification of the swap machinery, seen from outside:
// per module, a count of threads inside a with swapped_cuda_module(...);
// enter adds one, exit takes one, and a read of the module's cuda global
// sees a fake exactly while the count is positive. A history of an
// execution is linearizable when some order of its operations, each taking
// effect between its call and its return, follows this specification.

// linOp is an operation's input: what it is, on which module.
type linOp struct {
	kind   model.MarkKind // EnterCall (enter), ExitCall (exit) or Observe
	module int
}

// swapSpec is the porcupine model. States are per-module counts; the
// history is partitioned by module, so a state is one int.
var swapSpec = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byModule := map[int][]porcupine.Operation{}
		maxModule := -1
		for _, op := range history {
			m := op.Input.(linOp).module
			byModule[m] = append(byModule[m], op)
			maxModule = max(maxModule, m)
		}
		var parts [][]porcupine.Operation
		for m := 0; m <= maxModule; m++ { // in module order, never map order
			if ops := byModule[m]; len(ops) > 0 {
				parts = append(parts, ops)
			}
		}
		return parts
	},
	Init: func() any { return 0 },
	Step: func(state, input, output any) (bool, any) {
		count := state.(int)
		switch in := input.(linOp); in.kind {
		case model.EnterCall:
			return true, count + 1
		case model.ExitCall:
			return count > 0, count - 1
		default:
			return output.(bool) == (count > 0), count
		}
	},
	DescribeOperation: func(input, output any) string {
		in := input.(linOp)
		switch in.kind {
		case model.EnterCall:
			return fmt.Sprintf("enter(module %d)", in.module)
		case model.ExitCall:
			return fmt.Sprintf("exit(module %d)", in.module)
		}
		return fmt.Sprintf("read(module %d) -> swapped=%v", in.module, output)
	},
}

// Operations turns a history into porcupine operations: each mark's
// position is its time; an operation whose return never came (its thread
// died or the execution stopped) is pending until the end of time.
func Operations(h *model.History) []porcupine.Operation {
	type open struct {
		kind   model.MarkKind
		index  int
		module int
	}
	var ops []porcupine.Operation
	stacks := map[int][]open{} // per thread, entered calls not yet returned
	for i, m := range h.Marks {
		t := int64(i)
		switch m.Kind {
		case model.EnterCall, model.ExitCall:
			ops = append(ops, porcupine.Operation{ClientId: m.Thread, Input: linOp{m.Kind, m.Module}, Call: t, Return: math.MaxInt64})
			stacks[m.Thread] = append(stacks[m.Thread], open{m.Kind, len(ops) - 1, m.Module})
		case model.EnterReturn, model.ExitReturn:
			want := model.EnterCall
			if m.Kind == model.ExitReturn {
				want = model.ExitCall
			}
			st := stacks[m.Thread]
			// An enter that raised before its yield has no return: skip
			// past it to the call this return closes.
			for len(st) > 0 && st[len(st)-1].kind != want {
				st = st[:len(st)-1]
			}
			if len(st) == 0 {
				panic(fmt.Sprintf("check: history return %v of thread %d matches no call", m.Kind, m.Thread))
			}
			ops[st[len(st)-1].index].Return = t
			stacks[m.Thread] = st[:len(st)-1]
		case model.Observe:
			ops = append(ops, porcupine.Operation{ClientId: m.Thread, Input: linOp{model.Observe, m.Module}, Output: m.Swapped, Call: t, Return: t})
		}
	}
	return ops
}

// Linearizable checks a history against the specification.
func Linearizable(h *model.History) porcupine.CheckResult {
	res, _ := porcupine.CheckOperationsVerbose(swapSpec, Operations(h), 0)
	return res
}

// historyFailure is the history invariant's failure on h and its class
// (nil when h is linearizable): after-failure when the history without
// the reads of lingering threads (Mark.Aborted) is linearizable, since
// what only they read hurts nobody; harmful otherwise.
func historyFailure(h *model.History) (*sched.Failure, Harm) {
	if Linearizable(h) == porcupine.Ok {
		return nil, 0
	}
	f := &sched.Failure{Kind: KindNotLinearizable, Thread: -1,
		Message: fmt.Sprintf("the history of the swaps and cuda reads (%d marks) is not linearizable: no order of them has a read see a fake exactly while its module's count is positive", len(h.Marks))}
	healthy := &model.History{}
	for _, m := range h.Marks {
		if m.Kind != model.Observe || !m.Aborted {
			healthy.Marks = append(healthy.Marks, m)
		}
	}
	if len(healthy.Marks) < len(h.Marks) && Linearizable(healthy) == porcupine.Ok {
		return f, AfterFailure
	}
	return f, Harmful
}

// History replays a schedule and returns the history of its execution.
func History(p *model.Program, schedule []int) (*model.History, error) {
	w := model.New(p)
	w.History = &model.History{}
	for i, t := range schedule {
		if t < 0 || t >= w.NumThreads() || w.Status(t) != sched.Runnable {
			return nil, fmt.Errorf("step %d: thread %d cannot run", i+1, t)
		}
		w.Step(t)
	}
	return w.History, nil
}
