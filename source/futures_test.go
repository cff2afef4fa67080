package source_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// The persistent sets of source-loaded code (futures.go) are held by
// TestTransactionsKeepEveryKind and TestTransactionsOnRandomWorlds,
// whose reduced searches take them (its worlds of one host), and by the
// two tests below: three threads, where a thread's later steps can
// matter to another's next, and a broken reduction caught.

// threeThreads is the shape where persistent sets first leave out
// orders that matter to a thread's later steps.
var threeThreads = scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}

// TestFuturesKeepEveryKindWithThreeThreads: with three GPU threads, the
// reduced search (transactions and persistent sets) reaches every kind
// the search of every instruction does, in every variant's file.
func TestFuturesKeepEveryKindWithThreeThreads(t *testing.T) {
	for _, file := range txFiles {
		name := fmt.Sprintf("%s %+v", filepath.Base(file), threeThreads)
		p := load(t, pyvm.V312, file, threeThreads, model.GIL)
		full, red := txAgreeWithin(t, p, name, txMaxExecutions)
		require.Positive(t, full, "%s: not compared", name)
		t.Logf("%s: %d states, %d reduced", name, full, red)
	}
}

// kindsOf is every kind p's reduced search (source.Search) reaches, its
// futures passed on so that the search for every kind takes the
// persistent sets the plain search does; name is p's, in messages.
func kindsOf(t *testing.T, p *source.Program, name string) []string {
	t.Helper()
	var reach *sched.Reaching
	res, _ := source.Search(p, sched.Limits{}, func(s sched.System) sched.System {
		r := sched.NewReachingFutures(s)
		reach = r.Reaching
		return r
	})
	require.Equal(t, sched.Verified, res.Verdict, "%s: the reduced search for every kind did not finish", name)
	return reach.Kinds()
}

// TestBrokenFuturesAreCaught: futures made of the threads' next steps
// alone (a thread's later steps are what a persistent set must keep
// from being overtaken) lose kinds refcount_unregistered.py reaches
// with three threads, and the comparison above sees it.
func TestBrokenFuturesAreCaught(t *testing.T) {
	for _, name := range []string{"refcount_unregistered", "refcount_del"} {
		file := "../testdata/python/" + name + ".py"
		want := kindsOf(t, load(t, pyvm.V312, file, threeThreads, model.GIL), name)
		require.Contains(t, want, "use-saw-real", name)
		p := load(t, pyvm.V312, file, threeThreads, model.GIL)
		source.FuturesNextOnly(p)
		got := kindsOf(t, p, name+" (next steps only)")
		require.NotEqual(t, want, got, "%s: the broken futures reach every kind", name)
		t.Logf("%s: %v with futures, %v with next steps only", name, want, got)
	}
}

// raisingScenarios are scenario files whose kernels raise: a thread may
// die without a failing step, which the futures' cuts and the host's
// enablers must allow for (futures.go).
var raisingScenarios = []string{"aborted-launch.txt", "host-call-after-abort.txt", "lingering-thread.txt", "device-syncthreads.txt"}

// TestFuturesKeepEveryKindWhereKernelsRaise: in those worlds, the
// reduced search reaches every kind the search of every instruction
// does, in every file (those whose search for every kind passes 20,000
// executions unreduced are logged, not compared). By default the first
// scenario only; all of them under SWAPCHECK_LONG (a minute).
func TestFuturesKeepEveryKindWhereKernelsRaise(t *testing.T) {
	compared := 0
	scenarios := raisingScenarios[2:3]
	if testenv.Long() {
		scenarios = raisingScenarios
	} else {
		t.Log("lingering-thread.txt only; SWAPCHECK_LONG=1 takes every raising scenario")
	}
	for _, name := range scenarios {
		f, err := os.Open(filepath.Join("../testdata/scenarios", name))
		require.NoError(t, err)
		sc, err := scenario.Parse(f)
		f.Close()
		require.NoError(t, err)
		for _, file := range txFiles {
			p, err := source.Load(sourceOf(t, pyvm.V312, file), sc, model.GIL)
			if err != nil {
				t.Logf("%s %s: not loaded: %v", name, filepath.Base(file), err)
				continue
			}
			what := name + " " + filepath.Base(file)
			if full, red := txAgreeWithin(t, p, what, 20_000); full >= 0 {
				t.Logf("%s: %d states, %d reduced", what, full, red)
				compared++
			} else {
				t.Logf("%s: not compared: past 20,000 executions unreduced", what)
			}
		}
	}
	require.Positive(t, compared)
}
