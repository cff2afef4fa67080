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
		sc, err := model.Parse(f)
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
