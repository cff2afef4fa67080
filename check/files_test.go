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

// naiveSchedule is the schedule.txt of naive's 2-thread counterexample.
func naiveSchedule(t *testing.T) string {
	t.Helper()
	rep, err := check.Explore(check.Config{Protocol: protocol(t, "naive"), Scenario: mergedScenario(t, 2), Strategy: check.StrategyDFS, Atomicity: model.GIL})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, check.WriteSchedule(&b, rep))
	return b.String()
}

// TestScheduleFormat: schedule.txt names its format and the explore that
// wrote it; a reader takes today's files, with the format line or without
// it (written before the line existed), and refuses a file of another
// format, a directive given twice and an overlong line, each with one line
// that says where.
func TestScheduleFormat(t *testing.T) {
	text := naiveSchedule(t)
	formatLine := "format 2 (explore " + check.Version + ")\n"
	require.Contains(t, text, "\n"+formatLine)
	without := strings.Replace(text, formatLine, "", 1)
	_, steps, _ := strings.Cut(text, "\nsteps ")
	tests := []struct {
		name, text string
		err        string // "" when it reads
	}{
		{"today's file", text, ""},
		{"a file written before the format line", without, ""},
		{"another format", strings.Replace(text, formatLine, "format 3 (explore 9.9.9)\n", 1),
			"line 2: the schedule is of format 3 (written by explore 9.9.9), but explore " + check.Version + " reads formats 1 and 2"},
		{"another format, no writer", strings.Replace(text, formatLine, "format 7\n", 1), "format 7 (written by another version)"},
		{"a control character in the writer", strings.Replace(text, formatLine, "format 3 (explore \x1b[2J)\n", 1), `explore "\x1b[2J"`},
		{"protocol given twice", strings.Replace(text, "protocol naive\n", "protocol naive\nprotocol merged\n", 1), "protocol given twice (first on line 3)"},
		{"atomicity given twice", strings.Replace(text, "atomicity gil\n", "atomicity gil\natomicity free-threaded\n", 1), "atomicity given twice"},
		{"violations given twice", strings.Replace(text, "violations harmful\n", "violations harmful\nviolations all\n", 1), "violations given twice"},
		{"an unknown violations scope", strings.Replace(text, "violations harmful\n", "violations some\n", 1), `line 5: unknown violations scope "some" (want harmful or all)`},
		{"format given twice", strings.Replace(text, formatLine, formatLine+formatLine, 1), "line 3: format given twice"},
		{"steps given twice", text + "steps " + steps, "steps given twice"},
		{"a line too long", text + "# " + strings.Repeat("x", 1<<26) + "\n", "longer than 67108864 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := check.ReadSchedule(strings.NewReader(tt.text))
			if tt.err == "" {
				require.NoError(t, err)
				require.Equal(t, "naive", s.Protocol.Name)
				require.NotEmpty(t, s.Steps)
				return
			}
			require.ErrorContains(t, err, tt.err)
			require.NotContains(t, err.Error(), "\n")
			require.NotContains(t, err.Error(), "\x1b")
		})
	}
	t.Run("the overlong line is numbered", func(t *testing.T) {
		_, err := check.ReadSchedule(strings.NewReader(text + "# " + strings.Repeat("x", 1<<26) + "\n"))
		require.ErrorContains(t, err, "line ")
		require.Regexp(t, `^line \d+: longer than`, err.Error())
	})
}

// TestSummaryFormat: summary.json records the version and format; a
// summary of another format is refused naming both; one without the
// fields (written before them) is read.
func TestSummaryFormat(t *testing.T) {
	rep, err := check.Explore(check.Config{Protocol: swapMerged(t), Scenario: mergedScenario(t, 2), Strategy: check.StrategyDFS, Atomicity: model.GIL})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, check.Summarize(rep).WriteJSON(&b))
	var fields map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &fields))
	require.Equal(t, check.Version, fields["version"])
	require.Equal(t, float64(check.FormatVersion), fields["format"])

	old := bytes.Replace(b.Bytes(), []byte(`"format": 2,`), nil, 1)
	old = bytes.Replace(old, []byte(`"version": "`+check.Version+`",`), nil, 1)
	tests := []struct {
		name string
		data []byte
		err  string
	}{
		{"today's summary", b.Bytes(), ""},
		{"a summary written before the fields", old, ""},
		{"another format", bytes.Replace(b.Bytes(), []byte(`"format": 2,`), []byte(`"format": 3,`), 1),
			"the summary is of format 3 (written by explore " + check.Version + "), but explore " + check.Version + " reads formats 1 and 2"},
		{"not JSON", []byte("hello"), "not a summary.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := check.ReadSummary(tt.data)
			if tt.err == "" {
				require.NoError(t, err)
				require.Equal(t, "verified", s.Verdict)
				return
			}
			require.ErrorContains(t, err, tt.err)
		})
	}
}

// TestMergeSummariesSaysWhereAndWhy: the merged summary names the part
// whose counterexample it reports, its account of what stopped is a list
// without a stray separator, and parts of two versions are refused.
func TestMergeSummariesSaysWhereAndWhy(t *testing.T) {
	part := func(shard, verdict, stopped string) check.Summary {
		s := check.Summary{Version: check.Version, Format: check.FormatVersion, Protocol: "refcount-del", Atomicity: "gil", Strategy: "states", Scenario: "s",
			Shard: shard, Verdict: verdict, Stopped: stopped, Complete: verdict != "incomplete", Executions: 3}
		if verdict == "violation" {
			s.Violation = &check.ViolationSummary{Kind: "exception", Message: "KeyError " + shard}
		}
		return s
	}
	tests := []struct {
		name                         string
		parts                        []check.Summary
		verdict, stopped, violatedIn string
	}{
		{"a violation in one part", []check.Summary{part("0/3", "verified", ""), part("2/3", "violation", ""), part("1/3", "violation", "")},
			"violation", "", "1/3"},
		{"two parts cut short", []check.Summary{part("0/3", "incomplete", "timeout 1s"), part("1/3", "verified", ""), part("2/3", "incomplete", "interrupted")},
			"incomplete", "shard 0: incomplete timeout 1s; shard 2: incomplete interrupted", ""},
		{"a part cut short and one missing", []check.Summary{part("0/3", "incomplete", "timeout 1s"), part("1/3", "verified", "")},
			"incomplete", "shard 0: incomplete timeout 1s; missing shards: 2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := check.MergeSummaries(tt.parts)
			require.NoError(t, err)
			require.Equal(t, tt.verdict, got.Verdict)
			require.Equal(t, tt.stopped, got.Stopped)
			require.Equal(t, tt.violatedIn, got.ViolationShard)
			if tt.violatedIn != "" {
				require.Equal(t, "KeyError "+tt.violatedIn, got.Violation.Message, "the lowest part's counterexample")
			}
			require.Equal(t, check.Version, got.Version)
		})
	}
	t.Run("parts of two versions", func(t *testing.T) {
		other := part("1/2", "verified", "")
		other.Version = "0.0.1"
		_, err := check.MergeSummaries([]check.Summary{part("0/2", "verified", ""), other})
		require.ErrorContains(t, err, "shard 1/2 was written by explore 0.0.1, but shard 0/2 by explore "+check.Version)
	})
}
