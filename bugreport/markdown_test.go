package bugreport_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// TestReportSaysWhatShrank: the report of a shrunk counterexample says
// what shrank, from what to what, as the trace's shrunk line does; one
// found in a corpus names its file and says no search ran.
func TestReportSaysWhatShrank(t *testing.T) {
	shape := scenario.Shape{Threads: 4, Blocks: 1, Calls: 2, Modules: 1, Names: 1}
	sc, err := shape.Build()
	require.NoError(t, err)
	p, err := check.Lookup("naive")
	require.NoError(t, err)
	cfg := check.Config{Protocol: p, Scenario: sc, Shape: &shape, Atomicity: model.GIL, Strategy: check.StrategyDFS, Shrink: true}
	rep, err := check.Explore(cfg)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, bugreport.Write(&out, rep, "go run ./cmd/explore -calls 2 -protocol naive -threads 4"))
	require.Contains(t, out.String(), "from what to what: threads 4 -> 2, calls 2 -> 1; ")
	require.Contains(t, out.String(), rep.Shrink.String()+".")
	require.NotContains(t, out.String(), "corpus")

	corpus, err := check.ReadCorpus(filepath.Join("..", "check", "testdata", "golden"))
	require.NoError(t, err)
	cfg.Corpus = corpus
	rep, err = check.Explore(cfg)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Corpus)
	out.Reset()
	require.NoError(t, bugreport.Write(&out, rep, "go run ./cmd/explore -calls 2 -protocol naive -threads 4"))
	require.Contains(t, out.String(), "corpus of known counterexamples (`"+filepath.Base(rep.Corpus)+"`)", "the corpus file, by its name alone (its directory is the reporter's)")
	require.Contains(t, out.String(), "so no search ran.")
	require.NotContains(t, out.String(), "by searching", "a trace from the corpus said to come from a search")
}

// TestRendersOnGitHub parses the report of every golden counterexample
// (check/testdata/golden) as GitHub does (CommonMark with GitHub's
// extensions) and checks what a reader sees: one title, the five
// sections in order, the trace table, the Python files and trace.json
// each whole in its own code block, and a trace.json that replays to the
// same counterexample.
func TestRendersOnGitHub(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "check", "testdata", "golden", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			tr, err := check.ReadTrace(data)
			require.NoError(t, err)
			s, err := tr.Replayable()
			require.NoError(t, err)
			rep, err := check.Replay(s)
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, bugreport.Write(&out, rep, tr.Replay))
			src := out.Bytes()

			var headings []string
			blocks := map[string][]string{} // language: contents
			doc := md.Parser().Parse(text.NewReader(src))
			require.NoError(t, ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if !entering {
					return ast.WalkContinue, nil
				}
				switch n := n.(type) {
				case *ast.Heading:
					headings = append(headings, strings.Repeat("#", n.Level)+" "+string(n.Lines().Value(src)))
				case *ast.FencedCodeBlock:
					lang := string(n.Language(src))
					blocks[lang] = append(blocks[lang], string(n.Lines().Value(src)))
				}
				return ast.WalkContinue, nil
			}))
			require.Len(t, headings, 6, "%q", headings)
			require.True(t, strings.HasPrefix(headings[0], "# `swapped_cuda_module` ("+rep.Config.Protocol.Name+"): "), headings[0])
			require.Equal(t, []string{"## What breaks", "## Minimal scenario", "## Trace", "## Invariant violated", "## Replay"}, headings[1:])

			var table bytes.Buffer
			again, err := check.NewTrace(rep, tr.Replay)
			require.NoError(t, err)
			require.NoError(t, again.WriteTable(&table))
			require.Equal(t, stepMarks(table.String()), stepMarks(traceBlock(t, blocks["text"])), "the trace table is not one code block of the trace's steps")
			require.Contains(t, blocks["text"], rep.Config.Scenario.String())
			require.Len(t, blocks["python"], len(rep.Config.Scenario.Modules)+1, "a file per module, then main.py")
			require.True(t, strings.HasPrefix(blocks["python"][0], "# "+rep.Config.Scenario.Modules[0].Name+".py\n"))

			require.Len(t, blocks["json"], 1)
			fromReport, err := check.ReadReplay([]byte(blocks["json"][0]))
			require.NoError(t, err, "the report's trace.json does not read")
			require.Equal(t, s.Steps, fromReport.Steps)
			require.Equal(t, s.Scenario, fromReport.Scenario)
		})
	}
}

// TestRefusesNoViolation: a verified search has no bug to report.
func TestRefusesNoViolation(t *testing.T) {
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS})
	require.NoError(t, err)
	err = bugreport.Write(&bytes.Buffer{}, rep, "")
	require.EqualError(t, err, "the verdict is verified, not a violation: there is no bug to report")
}

// traceBlock is the code block that holds the trace table.
func traceBlock(t *testing.T, blocks []string) string {
	t.Helper()
	for _, b := range blocks {
		if strings.HasPrefix(b, " step |") {
			return b
		}
	}
	t.Fatalf("no code block holds the trace table")
	return ""
}

// stepMarks are a trace table's step numbers with their marks (">>",
// "~"), one per step, in order: what the report's table shows of the
// trace whatever its cells say.
func stepMarks(table string) []string {
	var marks []string
	for _, line := range strings.Split(table, "\n") {
		mark, _, ok := strings.Cut(line, " |")
		if mark = strings.TrimSpace(mark); ok && mark != "" && mark != "step" {
			marks = append(marks, mark)
		}
	}
	return marks
}

// TestPageNamesNoLocalPath: trace.html, like report.md, prints no path of
// the machine that wrote it, though the run's replay line names its
// schedule by an absolute path (-out's -replay DIR/schedule.txt).
func TestPageNamesNoLocalPath(t *testing.T) {
	rep := report(t, "naive", "", model.GIL, nil)
	var b bytes.Buffer
	require.NoError(t, bugreport.WriteHTML(&b, rep, "go run ./cmd/explore -replay /tmp/run/out/schedule.txt"))
	require.Empty(t, bugreport.LocalPaths(b.String()))
	require.Contains(t, b.String(), "go run ./cmd/explore -replay trace.json")
}
