package check_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// counterexamples are the golden traces of check/testdata/golden, replayed,
// and merged's counterexamples on the scenario files with faults and
// hosts: between them every kind a search reports on its own.
func counterexamples(t *testing.T) map[string]*check.Report {
	t.Helper()
	out := map[string]*check.Report{}
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		s, err := check.ReadReplay(data)
		require.NoError(t, err, path)
		rep, err := check.Replay(s)
		require.NoError(t, err, path)
		out[filepath.Base(path)] = rep
	}
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	for _, name := range []string{"aborted-launch.txt", "host-call-after-abort.txt", "two-hosts.txt"} {
		f, err := os.Open(filepath.Join("..", "testdata", "scenarios", name))
		require.NoError(t, err)
		sc, err := scenario.Parse(f)
		f.Close()
		require.NoError(t, err)
		rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS})
		require.NoError(t, err)
		require.NotNil(t, rep.Result.Failure, "merged on %s", name)
		out["merged-"+name] = rep
	}
	return out
}

// TestLinearizabilityOfCounterexamples: porcupine rejects the history of a
// counterexample exactly when a thread read the real module inside its own
// call (use-saw-real), and then VisualizeLinearizability writes porcupine's
// page of it, with the failing read annotated; for every other kind the
// history is linearizable and nothing is written.
func TestLinearizabilityOfCounterexamples(t *testing.T) {
	kinds := map[string]bool{}
	for name, rep := range counterexamples(t) {
		t.Run(name, func(t *testing.T) {
			var page bytes.Buffer
			res, err := check.VisualizeLinearizability(&page, rep)
			require.NoError(t, err)
			kind := rep.Result.Failure.Kind
			kinds[kind] = true
			if kind != check.KindUseSawReal {
				require.Equal(t, porcupine.Ok, res, "%s: %s", kind, rep.Result.Failure.Message)
				require.Zero(t, page.Len())
				return
			}
			require.Equal(t, porcupine.Illegal, res)
			html := page.String()
			require.True(t, strings.HasPrefix(html, "<!doctype html>"), "porcupine's page: %.40q", html)
			require.Contains(t, html, `"Description":"!! use-saw-real"`, "the failing read is annotated")
			require.Contains(t, html, `-\u003e real"`, "the read that saw the real module is named")
			var again bytes.Buffer
			_, err = check.VisualizeLinearizability(&again, rep)
			require.NoError(t, err)
			require.Equal(t, html, again.String(), "the page is the same every time")
			require.Contains(t, html, rep.Program.ThreadName(int(rep.Result.Failure.Thread))+", step ", "an operation's tooltip names its thread and step")
		})
	}
	for _, k := range []string{check.KindUseSawReal, check.KindException, check.KindUseSawOtherFake} {
		require.True(t, kinds[k], "no counterexample of kind %s here", k)
	}
	t.Logf("kinds: %v", kinds)
}

// TestWalksNeverEndNotLinearizable backs what check's doc and
// docs/trace-format.md say: no search has ended with the verdict
// not-linearizable, since porcupine rejects a history only for a read
// that use-saw-real reports first. Seeded walks of every variant, in
// every mode, on three shapes and every scenario file, run as a walk
// does (stopping at a step's failure, else checking the end); a walk that
// ends not-linearizable is no bug in the tool but a finding: say so in
// those docs, and show it on trace.html.
func TestWalksNeverEndNotLinearizable(t *testing.T) {
	var scenarios []*scenario.Scenario
	for _, sh := range []scenario.Shape{
		{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1},
		{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 2, Nest: 1},
	} {
		sc, err := sh.Build()
		require.NoError(t, err)
		scenarios = append(scenarios, sc)
	}
	for _, sc := range scenarioFiles(t) {
		scenarios = append(scenarios, sc)
	}
	const walks = 60
	ends := map[string]int{}
	for _, v := range variants.All() {
		for _, a := range model.Atomicities() {
			for i, sc := range scenarios {
				prog, err := model.NewProgram(sc, v.Protocol, a)
				require.NoError(t, err)
				choose := sched.NewSeeded(uint64(i + 1))
				for range walks {
					sys := check.NewSystem(prog)
					sys.RecordHistory()
					var end *sched.Failure
					for {
						var runnable []sched.ThreadID
						for th := range sys.NumThreads() {
							if sys.Status(sched.ThreadID(th)) == sched.Runnable {
								runnable = append(runnable, sched.ThreadID(th))
							}
						}
						if len(runnable) == 0 {
							end = sys.Final()
							break
						}
						if end = sys.Step(choose.Choose(runnable)); end != nil {
							break
						}
					}
					kind := "none"
					if end != nil {
						kind = end.Kind
					}
					ends[kind]++
					if kind == check.KindNotLinearizable {
						t.Fatalf("%s, %s, scenario %d: a walk ends not-linearizable (%s): the porcupine page is reachable on its own; update check/doc.go and docs/trace-format.md", v.Protocol.Name, a, i, end.Message)
					}
				}
			}
		}
	}
	t.Logf("how %d walks ended: %v", walks*len(variants.All())*len(model.Atomicities())*len(scenarios), ends)
}
