package bugreport

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// TestReplayAttachedWhenTooLong: a report whose replay would take it past
// an issue body's limit names replay.py as an attachment, with its size
// and sha256, and keeps the commands that run it; -out's replay.py is
// named only when it is this report's (not when gil-breaker's trace took
// the gil trace's place).
func TestReplayAttachedWhenTooLong(t *testing.T) {
	p, err := check.Lookup("naive")
	require.NoError(t, err)
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	r, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS})
	require.NoError(t, err)
	tr, err := check.NewTrace(r, "")
	require.NoError(t, err)
	script, err := packScript(r)
	require.NoError(t, err)
	for _, substituted := range []bool{false, true} {
		text, err := write(r, tr, "", "", script, "", false, substituted)
		require.NoError(t, err)
		require.NotContains(t, text, "<<'EOF'")
		require.Contains(t, text, "does not fit in an issue's body beside this report: attach it")
		require.Contains(t, text, script.sha256)
		require.Contains(t, text, "\n/usr/bin/python3 replay.py --target numba\n")
		require.Equal(t, !substituted, strings.Contains(text, "writes it as `DIR/replay.py` beside `DIR/report.md`"))
	}
	inline, err := write(r, tr, "", "", script, "", true, false)
	require.NoError(t, err)
	require.Less(t, len(inline), maxIssueBody, "the seed race's report with its replay inline fits an issue")
}
