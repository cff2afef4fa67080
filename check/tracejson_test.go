package check_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
)

// naiveTrace is the trace.json of naive's 2-thread counterexample, and
// its report.
func naiveTrace(t *testing.T) (string, *check.Report) {
	t.Helper()
	rep, err := check.Explore(check.Config{Protocol: protocol(t, "naive"), Scenario: mergedScenario(t, 2), Strategy: check.StrategyDFS, Atomicity: model.GIL})
	require.NoError(t, err)
	tr, err := check.NewTrace(rep, "go run ./cmd/explore -protocol naive")
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, tr.WriteJSON(&b))
	return b.String(), rep
}

// TestTraceFormat: trace.json names its schema, format and writer; a
// reader takes today's files (and fields it does not know), and refuses,
// in one line that says why, a file of another format (naming both), a
// file that is not a trace, and a scenario whose parsed shape disagrees
// with its text.
func TestTraceFormat(t *testing.T) {
	text, rep := naiveTrace(t)
	require.True(t, strings.HasPrefix(text, "{\n  \"schema\": \"swapcheck-trace\",\n  \"format\": 2,\n  \"version\": \""+check.Version+"\",\n"), text[:100])
	format := `"format": 2,`
	var summary bytes.Buffer
	require.NoError(t, check.Summarize(rep).WriteJSON(&summary))
	tests := []struct {
		name, text string
		err        string // "" when it reads
	}{
		{"today's file", text, ""},
		{"a field it does not know", strings.Replace(text, format, format+` "comment": "x",`, 1), ""},
		{"without its steps", compactTrace(t, text), ""},
		{"another format", strings.Replace(text, format, `"format": 3,`, 1),
			"the trace is of format 3 (written by explore " + check.Version + "), but explore " + check.Version + " reads formats 1 and 2"},
		{"no format", strings.Replace(text, format, "", 1), `trace.json without a "format" field`},
		{"a summary.json", summary.String(), `not a trace.json: its "schema" is "", not "swapcheck-trace"`},
		{"broken JSON", text[:200], "not a trace.json: unexpected end of JSON input"},
		{"an unknown protocol", strings.Replace(text, `"protocol": "naive"`, `"protocol": "nosuch"`, 1), "protocol: unknown protocol"},
		{"an unknown atomicity", strings.Replace(text, `"atomicity": "gil"`, `"atomicity": "none"`, 1), "atomicity: "},
		{"a scenario text that does not parse", strings.Replace(text, `"text": "threads 2`, `"text": "threads x`, 1), "scenario text: line 1"},
		{"shape and text disagree", strings.Replace(text, `"threads": 2,`, `"threads": 3,`, 1), "the scenario's threads disagree with its text"},
		{"a kernel that disagrees", strings.Replace(text, `"call f1"`, `"call f2"`, 1), "the scenario's kernel disagree with its text"},
		{"a negative thread", strings.Replace(text, `"schedule": [0,`, `"schedule": [-1,`, 1), "schedule step 1: -1 is not a thread number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := check.ReadReplay([]byte(tt.text))
			if tt.err == "" {
				require.NoError(t, err)
				require.Equal(t, "naive", s.Protocol.Name)
				require.Equal(t, rep.Result.Schedule, s.Steps)
				require.Equal(t, rep.Config.Scenario.String(), s.Scenario.String())
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.err)
			requireOneLine(t, err)
		})
	}
}

// compactTrace is a trace.json without its steps, as a bug report
// carries it.
func compactTrace(t *testing.T, text string) string {
	t.Helper()
	tr, err := check.ReadTrace([]byte(text))
	require.NoError(t, err)
	tr.Steps = nil
	var b bytes.Buffer
	require.NoError(t, tr.WriteJSON(&b))
	require.NotContains(t, b.String(), `"steps"`)
	return b.String()
}

// TestReadReplayTellsFilesApart: -replay's reader takes a schedule.txt and
// a trace.json of the same counterexample to the same schedule.
func TestReadReplayTellsFilesApart(t *testing.T) {
	text, _ := naiveTrace(t)
	fromJSON, err := check.ReadReplay([]byte("\n  " + text))
	require.NoError(t, err)
	fromText, err := check.ReadReplay([]byte(naiveSchedule(t)))
	require.NoError(t, err)
	require.Equal(t, fromText.Steps, fromJSON.Steps)
	require.Equal(t, fromText.Protocol, fromJSON.Protocol)
	require.Equal(t, fromText.Atomicity, fromJSON.Atomicity)
	require.Equal(t, fromText.Scenario, fromJSON.Scenario)
}

// TestTraceOneRendering: the text trace and trace.json come from one
// Trace: the JSON holds every text the trace shows.
func TestTraceOneRendering(t *testing.T) {
	text, rep := naiveTrace(t)
	var printed strings.Builder
	require.NoError(t, check.WriteTrace(&printed, rep, "go run ./cmd/explore -protocol naive"))
	var tr check.Trace
	require.NoError(t, json.Unmarshal([]byte(text), &tr))
	var again strings.Builder
	require.NoError(t, tr.WriteText(&again))
	require.Equal(t, printed.String(), again.String())
	require.Equal(t, check.KindUseSawReal, tr.Violation.Kind)
	require.Equal(t, "T1", tr.Violation.Thread)
	require.Equal(t, len(tr.Steps), tr.Violation.Step)
	last := tr.Steps[len(tr.Steps)-1]
	require.Equal(t, "T1", last.ThreadName)
	require.Equal(t, "AttributeError", last.Raises)
	require.Equal(t, []string{"host", "T0", "T1"}, tr.Threads)
}

// TestTraceWithoutViolation: a search without a violation renders the
// verdict and what it covered, with no steps.
func TestTraceWithoutViolation(t *testing.T) {
	rep, err := check.Explore(check.Config{Protocol: protocol(t, "merged"), Scenario: mergedScenario(t, 2), Strategy: check.StrategyDFS, Atomicity: model.GIL})
	require.NoError(t, err)
	tr, err := check.NewTrace(rep, "")
	require.NoError(t, err)
	require.Nil(t, tr.Violation)
	require.Empty(t, tr.Steps)
	require.Equal(t, "verified", tr.Verdict)
	var b strings.Builder
	require.NoError(t, tr.WriteText(&b))
	require.True(t, strings.HasPrefix(b.String(), "protocol merged, atomicity gil\nverdict: verified, nothing to report (strategy dfs: "), b.String())
}
