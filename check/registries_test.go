package check_test

// check holds two of the program's lists: the violation kinds (Kinds) and
// the strategies (Strategies, with StrategyDoc). These tests fail when a
// new kind or strategy is declared but left out of its list, its
// documentation, or (for a kind) every search that could find it (see
// docs/contributing.md).

import (
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// exportedConsts are the values of check's exported string constants
// whose names start with prefix, type-checked from source (once per test
// binary: seconds, with every package check imports).
func exportedConsts(t *testing.T, prefix string) map[string]string {
	t.Helper()
	pkg, err := checkFromSource()
	require.NoError(t, err)
	out := map[string]string{}
	for _, name := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if ok && c.Exported() && strings.HasPrefix(name, prefix) && c.Val().Kind() == constant.String {
			out[name] = constant.StringVal(c.Val())
		}
	}
	require.NotEmpty(t, out, "no constant %s*", prefix)
	return out
}

// checkFromSource is package check, type-checked from source.
var checkFromSource = sync.OnceValues(func() (*types.Package, error) {
	return importer.ForCompiler(token.NewFileSet(), "source", nil).Import("swapcheck/check")
})

// TestEveryKindIsListed: every Kind* constant is in check.Kinds (which
// -list prints), and the package documentation names it.
func TestEveryKindIsListed(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	consts := exportedConsts(t, "Kind")
	for name, kind := range consts {
		require.Contains(t, check.Kinds, kind, "check.%s is not in check.Kinds", name)
		require.Contains(t, string(doc), kind, "check/doc.go does not name the violation kind %s", kind)
	}
	require.Len(t, check.Kinds, len(consts), "check.Kinds holds a kind with no Kind* constant, or one twice")
}

// TestEveryStrategyIsListed: every Strategy* constant is in
// check.Strategies, says what it does in check.StrategyDoc (-list), and
// runs through Explore: each finds naive's 2-thread race, and none finds
// one in merged's.
func TestEveryStrategyIsListed(t *testing.T) {
	consts := exportedConsts(t, "Strategy")
	for name, s := range consts {
		require.Contains(t, check.Strategies, s, "check.%s is not in check.Strategies", name)
	}
	require.Len(t, check.Strategies, len(consts), "check.Strategies holds a strategy with no Strategy* constant, or one twice")
	for s := range check.StrategyDoc {
		require.Contains(t, check.Strategies, s, "check.StrategyDoc documents %s, which check.Strategies does not list", s)
	}
	naive, err := check.Lookup("naive")
	require.NoError(t, err)
	merged, err := check.Lookup("merged")
	require.NoError(t, err)
	sc, err := scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}.Build()
	require.NoError(t, err)
	for _, s := range check.Strategies {
		t.Run(s, func(t *testing.T) {
			require.NotEmpty(t, check.StrategyDoc[s], "check.StrategyDoc says nothing of %s", s)
			run := func(p *model.Protocol) sched.Result {
				rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: s,
					Runs: 2000, Seed: 1, Depth: 3, Preemptions: 2})
				require.NoError(t, err)
				return rep.Result
			}
			res := run(naive)
			require.Equal(t, sched.Violation, res.Verdict, "naive")
			require.Equal(t, check.KindUseSawReal, res.Failure.Kind)
			require.NotEqual(t, sched.Violation, run(merged).Verdict, "merged")
		})
	}
}

// deadlocking takes a lock it already holds: Python's threading.Lock is
// not reentrant, so its thread blocks for good. No registered variant
// deadlocks; this one makes the deadlock kind reachable through check.
var deadlocking = (&model.Protocol{
	Name: "deadlocking", Source: "deadlocking.py", Summary: "takes its lock twice",
	GlobalLockName: "_lock",
	Code: []model.Instr{
		acquireTwice(1), acquireTwice(2),
		{Label: "try", Line: 3, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
	},
}).Compile()

func acquireTwice(line int) model.Instr {
	return model.Instr{
		Line: line, Text: "_lock.acquire()", Bytecode: "CALL (lock.acquire)", Object: model.GlobalLock, Access: sched.Write,
		Ready: func(c *model.Ctx) bool { return c.LockFree(model.GlobalLockRef) },
		Exec:  func(c *model.Ctx) { c.Acquire(model.GlobalLockRef) },
	}
}

// TestEveryKindIsFound: every kind in check.Kinds is found by one of the
// searches here, each run with every failure recorded and passed over
// (a tolerant recorder) but the scheduler's own, a deadlock, which ends
// the search. A kind whose check is never reached fails.
func TestEveryKindIsFound(t *testing.T) {
	f, err := os.Open("../testdata/scenarios/aborted-launch.txt")
	require.NoError(t, err)
	aborted, err := scenario.Parse(f)
	f.Close()
	require.NoError(t, err)
	shape := func(threads int) *scenario.Scenario {
		sc, err := scenario.Shape{Threads: threads, Blocks: 1, Calls: 1, Modules: 1, Names: 1}.Build()
		require.NoError(t, err)
		return sc
	}
	parse := func(text string) *scenario.Scenario {
		sc, err := scenario.Parse(strings.NewReader(text))
		require.NoError(t, err)
		return sc
	}
	lookup := func(name string) *model.Protocol {
		p, err := check.Lookup(name)
		require.NoError(t, err)
		return p
	}
	searches := []struct {
		name     string
		protocol *model.Protocol
		scenario *scenario.Scenario
		strategy sched.Strategy
		history  bool // record and check the history (not-linearizable)
	}{
		{"refcount-del, 3 threads, dfs", lookup("refcount-del"), shape(3), sched.DFS{}, false},
		{"merged, aborted launch, dfs", lookup("merged"), aborted, sched.DFS{}, false},
		{"naive, 2 threads, random walks", lookup("naive"), shape(2), sched.Random{Runs: 200, Chooser: sched.NewSeeded(1)}, true},
		{"a lock taken twice, 2 threads, dfs", deadlocking, shape(2), sched.DFS{}, false},
		{"merged, atomic add and sub, dfs", lookup("merged"), parse("array a 1\nmodule k cuda\nkernel: if tid == 0: atomic.add a 0 1; else: atomic.sub a 0 1; end\n"), sched.DFS{}, false},
		{"merged, shared.array, dfs", lookup("merged"), parse("module k cuda\nkernel: shared.array s 2\n"), sched.DFS{}, false},
		{"merged, shared.array stored, synced and loaded, dfs", lookup("merged"), parse("module k cuda\nkernel: shared.array s 2; if tid == 0: store s 0 1; else: store s 1 2; end; syncthreads; load s 0; load s 1\n"), sched.DFS{}, false},
	}
	found := map[string]string{}
	for _, s := range searches {
		prog, err := model.NewProgram(s.scenario, s.protocol, model.GIL)
		require.NoError(t, err, s.name)
		sys := check.NewSystem(prog)
		if s.history {
			sys.RecordHistory()
		}
		rec := newRecorder(sys, true)
		res := s.strategy.Run(rec, sched.Limits{})
		require.NotEqual(t, sched.Incomplete, res.Verdict, s.name)
		if res.Verdict == sched.Violation { // the scheduler's own: a deadlock
			rec.kinds[res.Failure.Kind] = true
		}
		for k := range rec.kinds {
			if _, ok := found[k]; !ok {
				found[k] = s.name
			}
		}
	}
	for _, k := range check.Kinds {
		require.Contains(t, found, k, "no search here finds %s: add one that does", k)
		t.Logf("%s: %s", k, found[k])
	}
}
