package check_test

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// history runs a search and returns the history of its counterexample (or,
// with none, of one seeded walk).
func historyOf(t *testing.T, protocol string, sh scenario.Shape, strategy string) (*model.History, *check.Report) {
	t.Helper()
	p, err := check.Lookup(protocol)
	require.NoError(t, err)
	sc, err := sh.Build()
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: strategy, Runs: 1, Seed: 3})
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	schedule := make([]int, len(rep.Result.Schedule))
	for i, th := range rep.Result.Schedule {
		schedule[i] = int(th)
	}
	h, err := check.History(prog, schedule)
	require.NoError(t, err)
	return h, rep
}

func TestLinearizability(t *testing.T) {
	two := scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}

	t.Run("naive counterexample is not linearizable", func(t *testing.T) {
		h, rep := historyOf(t, "naive", two, check.StrategyDFS)
		require.Equal(t, sched.Violation, rep.Result.Verdict)
		require.Equal(t, porcupine.Illegal, check.Linearizable(h),
			"the thread reading the real module while its own call is inside must break the spec")
	})

	t.Run("dropping the bad read makes the naive history linearizable", func(t *testing.T) {
		h, _ := historyOf(t, "naive", two, check.StrategyDFS)
		last := -1
		for i, m := range h.Marks {
			if m.Kind == model.Observe {
				last = i
			}
		}
		require.GreaterOrEqual(t, last, 0)
		require.False(t, h.Marks[last].Swapped, "the failing read saw the real module")
		h.Marks = append(h.Marks[:last], h.Marks[last+1:]...)
		require.Equal(t, porcupine.Ok, check.Linearizable(h))
	})

	// Every variant registered as correct.
	for _, name := range registered(variants.Correct) {
		t.Run(name+" random walks are linearizable", func(t *testing.T) {
			p, err := check.Lookup(name)
			require.NoError(t, err)
			sc, err := scenario.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1}.Build()
			require.NoError(t, err)
			rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL,
				Strategy: check.StrategyRandom, Runs: 300, Seed: 11})
			require.NoError(t, err)
			require.Equal(t, sched.NoViolationFound, rep.Result.Verdict, "%v", rep.Result.Failure)
		})
	}

	t.Run("operations pair calls with returns", func(t *testing.T) {
		p, err := check.Lookup("merged")
		require.NoError(t, err)
		sc, err := two.Build()
		require.NoError(t, err)
		prog, err := model.NewProgram(sc, p, model.GIL)
		require.NoError(t, err)
		w := model.New(prog)
		w.History = &model.History{}
		choose := sched.NewSeeded(5)
		for {
			var runnable []sched.ThreadID
			for th := range w.NumThreads() {
				if w.Status(th) == sched.Runnable {
					runnable = append(runnable, sched.ThreadID(th))
				}
			}
			if len(runnable) == 0 {
				break
			}
			w.Step(int(choose.Choose(runnable)))
		}
		ops := check.Operations(w.History)
		require.NotEmpty(t, ops)
		for _, op := range ops {
			require.LessOrEqual(t, op.Call, op.Return)
			require.NotEqual(t, int64(1<<63-1), op.Return, "a finished walk leaves no pending operation")
		}
	})
}
