package bugreport_test

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// TestSourcePageInBrowser opens the trace.html of a -source
// counterexample (naive.py, CPython 3.11's bytecode) in a headless
// Chromium and checks what it shows once its script ran: a lane per
// thread that took a step, every step in its thread's lane with the
// lines of the file it ran, the failing step marked and made current,
// the scenario, and the replay command with no path of this machine.
func TestSourcePageInBrowser(t *testing.T) {
	browser := headlessBrowser(t)
	testenv.PythonVersion(t, "3.11")
	in, err := pysource.Find("3.11")
	require.NoError(t, err)
	src, err := pysource.Load(in, filepath.Join("..", "testdata", "python", "naive.py"))
	require.NoError(t, err)
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	p, err := source.Load(src, sc, model.GIL)
	require.NoError(t, err)
	res := sched.States{}.Run(source.New(p), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	tr, err := check.NewSourceTrace(check.SourceRun{Program: p, Result: res, Verdict: "violation",
		Strategy: "states", Replay: "go run ./cmd/explore -source " + src.File + " -python 3.11"})
	require.NoError(t, err)

	dir := t.TempDir()
	var b bytes.Buffer
	require.NoError(t, bugreport.WriteSourceHTML(&b, tr, "a step runs its thread up to one instruction that touches what another thread can"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "source.html"), b.Bytes(), 0o644))
	index := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(index, []byte(fmt.Sprintf(harness, `<iframe class="page" id="source" src="source.html"></iframe>`)), 0o644))
	d := frameDOM(dumpDOM(t, browser, index), "source")
	require.NotEmpty(t, d, "no DOM of the page")
	text := html.UnescapeString(d)

	names, laneOf := tr.Lanes()
	require.GreaterOrEqual(t, len(names), 3, "the host and two GPU threads")
	for i, name := range names {
		require.Contains(t, d, fmt.Sprintf(`<th class="lane" data-lane="%d" data-thread="%s">%s</th>`, i, name, name))
	}
	require.Equal(t, len(tr.Steps), strings.Count(d, `<tr id="step-`), "a row per step")
	sawFile := false
	for _, s := range tr.Steps {
		row := regexp.MustCompile(fmt.Sprintf(`(?s)<tr id="step-%d" data-thread="%s"[^>]*>(.*?)</tr>`, s.Step, regexp.QuoteMeta(s.ThreadName))).FindStringSubmatch(d)
		require.NotNil(t, row, "step %d", s.Step)
		require.Contains(t, row[1], fmt.Sprintf(`<td class="cell" data-lane="%d"`, laneOf[s.Thread]), "step %d in %s's lane", s.Step, s.ThreadName)
		for _, l := range s.Lines() {
			if l.Native {
				require.Contains(t, html.UnescapeString(row[1]), "("+l.Bytecode[0]+")", "step %d", s.Step)
				continue
			}
			require.Contains(t, html.UnescapeString(row[1]), l.Where, "step %d", s.Step)
			sawFile = sawFile || strings.HasPrefix(l.Where, "naive.py:")
		}
	}
	require.True(t, sawFile, "no cell names a line of naive.py")
	v := tr.Violation
	last := len(tr.Steps)
	require.Regexp(t, fmt.Sprintf(`<tr id="step-%d" data-thread="%s" class="violating current">`, last, v.Thread), d,
		"the failing step marked, and made current by the page's script")
	require.Contains(t, text, fmt.Sprintf("step %d of %d, thread %s: the violating step", last, last, v.Thread))
	require.Contains(t, text, "!! "+v.Kind)
	require.Contains(t, text, v.Message)
	require.Contains(t, text, tr.Scenario.Text)
	require.Contains(t, text, `<pre id="replay">go run ./cmd/explore -replay trace.json</pre>`, "the command names no path of this machine")
	require.Empty(t, bugreport.LocalPaths(text))
}
