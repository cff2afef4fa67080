package source_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// txFiles are the files the transactions are checked on: every
// variant's Python; halfdone.py, whose bug only a split lock block
// shows; and firstcount.py, whose exit reads a registry's order, which
// breaks "Registries as sets" (transactions.go).
var txFiles = []string{
	"../testdata/python/naive.py", "../testdata/python/global_lock.py", "../testdata/python/refcount_unregistered.py",
	"../testdata/python/refcount_del.py", "../testdata/python/merged.py", "../testdata/python/merged_fix.py",
	"../testdata/python/proposed.py", "testdata/halfdone.py", "testdata/firstcount.py",
}

// txShapes are the worlds they are checked in: the verdict table's (but
// its faults, which the reduction leaves alone), those of seconds by
// default, all with long.
func txShapes(long bool) []scenario.Shape {
	one := func(f func(*scenario.Shape)) scenario.Shape {
		s := scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}
		f(&s)
		return s
	}
	shapes := []scenario.Shape{
		one(func(*scenario.Shape) {}),
		one(func(s *scenario.Shape) { s.Calls, s.Modules = 2, 2 }),
		one(func(s *scenario.Shape) { s.Nest, s.Names = 1, 2 }),
		one(func(s *scenario.Shape) { s.Calls, s.Syncthreads = 2, true }),
		one(func(s *scenario.Shape) { s.HostCalls = true }),
	}
	if long {
		shapes = append(shapes,
			one(func(s *scenario.Shape) { s.Hosts = 2 }),
			one(func(s *scenario.Shape) { s.Threads = 3 }),
			one(func(s *scenario.Shape) { s.Blocks = 2 }),
		)
	}
	return shapes
}

// txWorlds are the CPython versions, modes and shapes
// TestTransactionsKeepEveryKind compares: 3.12 under gil by default;
// with SWAPCHECK_LONG every shape on 3.12 under gil, and the light ones
// in the free-threaded modes on 3.12 and under gil on 3.11. (Every
// version, mode and shape, three threads with branches too, took 18
// minutes: 432 worlds. Random worlds with branches are
// TestTransactionsOnRandomWorlds'.)
type txWorld struct {
	v      pyvm.Version
	a      model.Atomicity
	shapes []scenario.Shape
}

func txWorlds() []txWorld {
	long := testenv.Long()
	ws := []txWorld{{pyvm.V312, model.GIL, txShapes(long)}}
	if long {
		ws = append(ws,
			txWorld{pyvm.V312, model.FreeThreaded, txShapes(false)},
			txWorld{pyvm.V312, model.FreeThreadedOverwrite, txShapes(false)},
			txWorld{pyvm.V311, model.GIL, txShapes(false)},
		)
	}
	return ws
}

// txAgree checks the reduced search of p against its unreduced one: the
// same verdict, the same kinds reachable, and, for a violation, a
// schedule that replays as p's own to the same failure. It returns the
// state counts of the unreduced search for every kind and of the reduced
// search.
func txAgree(t *testing.T, p *source.Program, name string) (full, reduced int64) {
	t.Helper()
	return txAgreeWithin(t, p, name, 0)
}

// txAgreeWithin is txAgree on a world whose unreduced search for every
// kind ends within maxExecutions (0: any); of a larger one it checks
// nothing and returns -1.
func txAgreeWithin(t *testing.T, p *source.Program, name string, maxExecutions int64) (full, reduced int64) {
	t.Helper()
	all := sched.NewReaching(source.New(p))
	r := sched.States{}.Run(all, sched.Limits{MaxExecutions: maxExecutions})
	if r.Verdict != sched.Verified {
		require.Positive(t, maxExecutions, "%s: the unreduced search for every kind did not finish", name)
		return -1, -1
	}
	// the unreduced verdict is the complete search's: a violation where
	// some kind is reachable (a plain search besides it came to the same
	// verdict: TestTransactionsKeepEveryKind took 69 s with it, 58 s
	// without, under SWAPCHECK_LONG=1)
	kinds, verdict := all.Kinds(), sched.Verified
	if len(kinds) > 0 {
		verdict = sched.Violation
	}
	red, how := source.Search(p, sched.Limits{}, nil)
	require.Equal(t, verdict, red.Verdict, "%s: the verdict (%s)", name, how)
	require.Equal(t, kinds, kindsOf(t, p, name), "%s: the kinds reachable, unreduced and reduced (%s)", name, how)
	if red.Verdict == sched.Violation {
		require.Contains(t, kinds, red.Failure.Kind, "%s", name)
		if red.Failure.Kind != sched.KindDeadlock {
			_, f := source.Run(p, red.Schedule)
			require.NotNil(t, f, "%s: the expanded schedule replays to no failure", name)
			require.Equal(t, red.Failure.Kind, f.Kind, "%s: the expanded schedule's failure", name)
		}
	}
	return r.Stats.States, red.Stats.States
}

// txMaxExecutions bounds the unreduced search of a world of
// TestTransactionsKeepEveryKind: the reaching search of a buggy variant
// goes on past every failure, and a few of SWAPCHECK_LONG's worlds pass
// it (they are logged; the default run must compare every world).
const txMaxExecutions = 400_000

// TestTransactionsKeepEveryKind: a search of transactions reaches every
// violation kind the search of every instruction reaches, and no other,
// in every variant's file and in halfdone.py, in every world of
// txWorlds.
func TestTransactionsKeepEveryKind(t *testing.T) {
	compared, skipped := 0, 0
	defer func() {
		t.Logf("%d worlds compared, %d past the bound", compared, skipped)
		if !testenv.Long() {
			require.Zero(t, skipped, "every world of the default run must be compared")
		}
	}()
	for _, w := range txWorlds() {
		for _, file := range txFiles {
			for _, sh := range w.shapes {
				name := fmt.Sprintf("%s %s %s %+v", w.v, filepath.Base(file), w.a, sh)
				p := load(t, w.v, file, sh, w.a)
				full, red := txAgreeWithin(t, p, name, txMaxExecutions)
				if full < 0 {
					t.Logf("%s: not compared: its unreduced search for every kind passes %d executions", name, txMaxExecutions)
					skipped++
					continue
				}
				t.Logf("%s: %d states, %d as transactions", name, full, red)
				compared++
			}
		}
	}
}

// TestTransactionsOnRandomWorlds: the same on worlds drawn at random
// (40 under SWAPCHECK_LONG), those whose unreduced search ends
// within 5,000 executions.
func TestTransactionsOnRandomWorlds(t *testing.T) {
	n := 8
	if testenv.Long() {
		n = 40
	}
	setChecks(t, n)
	rapid.Check(t, func(rt *rapid.T) {
		file := rapid.SampledFrom(txFiles).Draw(rt, "file")
		a := rapid.SampledFrom([]model.Atomicity{model.GIL, model.FreeThreaded, model.FreeThreadedOverwrite}).Draw(rt, "atomicity")
		sh := scenario.Shape{
			Threads: rapid.IntRange(1, 3).Draw(rt, "threads"), Blocks: rapid.IntRange(1, 2).Draw(rt, "blocks"),
			Calls: rapid.IntRange(1, 2).Draw(rt, "calls"), Modules: rapid.IntRange(1, 2).Draw(rt, "modules"),
			Names: rapid.IntRange(1, 2).Draw(rt, "names"), Nest: rapid.IntRange(0, 1).Draw(rt, "nest"),
			Syncthreads: rapid.Bool().Draw(rt, "syncthreads"), HostCalls: rapid.Bool().Draw(rt, "host-calls"),
			Hosts: rapid.IntRange(1, 2).Draw(rt, "hosts"), Branch: rapid.Bool().Draw(rt, "branch"),
		}
		sc, err := sh.Build()
		require.NoError(rt, err)
		p, err := source.Load(sourceOf(t, pyvm.V312, file), sc, a)
		if err != nil {
			rt.Skipf("a world -source does not take: %v", err)
		}
		if full, _ := txAgreeWithin(t, p, fmt.Sprintf("%s %s %+v", filepath.Base(file), a, sh), 5000); full < 0 {
			rt.Skip("a world past 5,000 executions unreduced")
		}
	})
}

// setChecks makes rapid draw n cases in this test, unless -rapid.checks
// was given.
func setChecks(t *testing.T, n int) {
	f := flag.Lookup("rapid.checks")
	if f == nil || f.Value.String() != f.DefValue {
		return
	}
	old := f.Value.String()
	require.NoError(t, flag.Set("rapid.checks", strconv.Itoa(n)))
	t.Cleanup(func() { _ = flag.Set("rapid.checks", old) })
}

// TestBrokenTransactionsAreCaught: two broken reductions change a
// verdict. One trusts every mover it took without checking the locksets
// after (halfdone.py's lock block stays one step, so no exit sees its
// mark); one takes every access as a mover (naive's swap becomes one
// step, so no use sees the real module).
func TestBrokenTransactionsAreCaught(t *testing.T) {
	sh := scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}
	for _, c := range []struct {
		file   string
		broken func(*source.Program) *source.Program
		kind   string
	}{
		{"testdata/halfdone.py", source.ReducedIgnoringBreaks, source.KindException},
		{"../testdata/python/naive.py", source.ReducedAllMovers, source.KindUseSawReal},
	} {
		p := load(t, pyvm.V312, c.file, sh, model.GIL)
		res, how := source.Search(p, sched.Limits{}, nil)
		require.Equal(t, sched.Violation, res.Verdict, "%s (%s)", c.file, how)
		require.Equal(t, c.kind, res.Failure.Kind, c.file)
		bad, _ := source.Search(c.broken(p), sched.Limits{}, nil)
		require.Equal(t, sched.Verified, bad.Verdict, "%s: the broken reduction was not caught: it keeps the violation", c.file)
	}
}

// TestIgnoredOrderBreaksAreCaught: insertorder.py raises in one of the
// two orders two threads' inserts into a registry can take, and its
// mirror (the same file, its test of the order turned round) in the
// other. The sound search learns that the registry's order is read and
// finds both raises; a reduction that ignores its breaks keys the
// registry as a set throughout, continues one of the two orders only,
// and misses the raise of one file.
func TestIgnoredOrderBreaksAreCaught(t *testing.T) {
	src, err := os.ReadFile("testdata/insertorder.py")
	require.NoError(t, err)
	last, second := `order[2] == _first["device"]`, `order[1] == _first["device"]`
	require.Equal(t, 1, strings.Count(string(src), last), "insertorder.py's test of the order")
	mirror := filepath.Join(t.TempDir(), "insertorder_mirror.py")
	require.NoError(t, os.WriteFile(mirror, []byte(strings.Replace(string(src), last, second, 1)), 0o644))
	sh := scenario.Shape{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1}
	for _, v := range []pyvm.Version{pyvm.V311, pyvm.V312} {
		missed := 0
		for _, file := range []string{"testdata/insertorder.py", mirror} {
			p := load(t, v, file, sh, model.GIL)
			res, how := source.Search(p, sched.Limits{}, nil)
			require.Equal(t, sched.Violation, res.Verdict, "%s on %s (%s)", file, v, how)
			require.Equal(t, source.KindException, res.Failure.Kind, "%s on %s", file, v)
			bad, _ := source.Search(source.ReducedIgnoringBreaks(p), sched.Limits{}, nil)
			if bad.Verdict == sched.Verified {
				missed++
			}
		}
		require.Equal(t, 1, missed, "on %s: ignoring the registry's order breaks should lose the raise of exactly one of the two files", v)
	}
}

// TestMayLoopOnlyOnCycles: 3.12's with statement jumps backward from its
// handler to the code after it, which is no loop (merged.py has none);
// a while loop is (mergedfix_spin.py).
func TestMayLoopOnlyOnCycles(t *testing.T) {
	sh := scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}
	for _, v := range []pyvm.Version{pyvm.V311, pyvm.V312} {
		require.False(t, load(t, v, "../testdata/python/merged.py", sh, model.GIL).MayLoop(), "merged.py on %s", v)
		require.True(t, load(t, v, "testdata/mergedfix_spin.py", sh, model.GIL).MayLoop(), "mergedfix_spin.py on %s", v)
	}
}
