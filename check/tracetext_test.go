package check_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// lanes is the number of thread columns a text trace's table has.
func lanes(t *testing.T, text string) int {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, " step |") {
			return strings.Count(line, "|")
		}
	}
	t.Fatalf("no table head in\n%s", text)
	return 0
}

// TestGoldenFitsTextWidth: every line of every golden text trace of the
// host and two GPU threads fits in 80 columns, the table, the message,
// the shrink line and the replay command included.
func TestGoldenFitsTextWidth(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.txt"))
	require.NoError(t, err)
	checked := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		if lanes(t, string(data)) > 3 {
			continue
		}
		checked++
		for i, line := range strings.Split(string(data), "\n") {
			require.LessOrEqual(t, utf8.RuneCountInString(line), check.TextWidth, "%s:%d is %d columns wide:\n%s", path, i+1, utf8.RuneCountInString(line), line)
		}
	}
	require.NotZero(t, checked, "no golden trace of two GPU threads; create them with: %s", goldenRefresh)
}

// laneTrace is a trace whose steps come from the host and gpu GPU
// threads, each step of one long line and one effect, the last failing.
func laneTrace(gpu int) *check.Trace {
	tr := &check.Trace{Protocol: "naive", Atomicity: "gil", Verdict: "violation", Threads: []string{"host"}}
	text := "orig = dict((k, v) for k, v in fn_globs.items() if v is cuda)"
	for n := 0; n <= gpu; n++ {
		if n > 0 {
			tr.Threads = append(tr.Threads, fmt.Sprintf("T%d", n-1))
		}
		tr.Steps = append(tr.Steps, check.TraceEntry{Step: n + 1, Thread: n, Where: "naive.py:11", Text: text, Effects: []string{"dev1.cuda is numba.cuda"}})
	}
	tr.Violation = &check.TraceViolation{Kind: check.KindUseSawReal, Thread: tr.Threads[gpu], Step: gpu + 1}
	return tr
}

// TestTableLanes: each thread's text starts at its own lane, after the
// rails of the lanes to its left, and wraps to the table's width: 80
// columns for up to four GPU threads besides the host; more threads widen
// the table, never squeeze the last lane's text below 40 columns.
func TestTableLanes(t *testing.T) {
	for gpu := 1; gpu <= 7; gpu++ {
		t.Run(fmt.Sprintf("host and %d GPU threads", gpu), func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, laneTrace(gpu).WriteTable(&b))
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			widest := 0
			for _, l := range lines {
				widest = max(widest, utf8.RuneCountInString(l))
			}
			if gpu <= 4 {
				require.LessOrEqual(t, widest, check.TextWidth, b.String())
			} else {
				require.Greater(t, widest, check.TextWidth, b.String())
			}
			head := lines[0]
			require.Equal(t, gpu+1, strings.Count(head, "|"), head)
			// a step's first line: its number, then one rail per lane to
			// the left of its thread's, then the step's text
			for n := 0; n <= gpu; n++ {
				var first string
				for _, l := range lines {
					if strings.HasPrefix(strings.TrimLeft(l, " >"), fmt.Sprint(n+1)+" |") {
						first = l
						break
					}
				}
				require.NotEmpty(t, first, "no row of step %d in\n%s", n+1, b.String())
				at := strings.Index(first, "naive.py:11")
				require.Equal(t, n+1, strings.Count(first[:at], "|"), "step %d is not in its thread's lane:\n%s", n+1, b.String())
				require.Equal(t, strings.Index(head, "| "+laneName(n)), at-2, "step %d does not start under its thread's name:\n%s", n+1, b.String())
			}
			last := lines[len(lines)-1]
			require.True(t, strings.HasSuffix(last, "| !! "+check.KindUseSawReal), last)
			require.Contains(t, b.String(), ">>"+fmt.Sprint(gpu+1)+" |")
			textWidth := utf8.RuneCountInString(lines[1]) - strings.LastIndex(lines[1], "+") - 2
			require.GreaterOrEqual(t, textWidth, 40, "the last lane's text:\n%s", b.String())
		})
	}
}

func laneName(n int) string {
	if n == 0 {
		return "host"
	}
	return fmt.Sprintf("T%d", n-1)
}

// TestTraceSaysWhatShrank: a shrunk counterexample's trace says what
// shrank, from what to what, in its text and its trace.json, and a
// replay of its schedule.txt or trace.json says it again (the replay
// prints the trace the run printed); without shrinking there is no such
// line.
func TestTraceSaysWhatShrank(t *testing.T) {
	shape := scenario.Shape{Threads: 4, Blocks: 1, Calls: 2, Modules: 1, Names: 1}
	sc, err := shape.Build()
	require.NoError(t, err)
	cfg := check.Config{Protocol: protocol(t, "naive"), Scenario: sc, Shape: &shape, Atomicity: model.GIL, Strategy: check.StrategyDFS, Shrink: true}
	rep, err := check.Explore(cfg)
	require.NoError(t, err)
	require.NotNil(t, rep.Shrink)
	const repro = "go run ./cmd/explore -replay schedule.txt"
	tr, err := check.NewTrace(rep, repro)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tr.Shrunk, "threads 4 -> 2, calls 2 -> 1; "), tr.Shrunk)
	require.Equal(t, rep.Shrink.String(), tr.Shrunk)
	var text, js, sched bytes.Buffer
	require.NoError(t, tr.WriteText(&text))
	require.Contains(t, text.String(), "\nshrunk: threads 4 -> 2, calls 2 -> 1; ")
	require.NoError(t, tr.WriteJSON(&js))
	require.Contains(t, js.String(), `"shrunk": "threads 4 -> 2, calls 2 -> 1; `)
	require.NoError(t, check.WriteSchedule(&sched, rep))

	for name, file := range map[string][]byte{"schedule.txt": sched.Bytes(), "trace.json": js.Bytes()} {
		t.Run("replay of "+name, func(t *testing.T) {
			s, err := check.ReadReplay(file)
			require.NoError(t, err)
			again, err := check.Replay(s)
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, check.WriteTrace(&b, again, repro))
			require.Equal(t, text.String(), b.String())
		})
	}

	t.Run("not shrunk", func(t *testing.T) {
		cfg.Shrink = false
		rep, err := check.Explore(cfg)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, check.WriteTrace(&b, rep, repro))
		require.NotContains(t, b.String(), "shrunk")
	})
}
