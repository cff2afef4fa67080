package stress_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/stress"
)

var strategies = []string{check.StrategyDFS, check.StrategyBFS, check.StrategyRandom}

// Searches find naive's race on two threads, and stress with noise does;
// the table has a column for each method and the ratio at the end.
func TestCompare(t *testing.T) {
	cfg := stress.CompareConfig{
		Cases:      []stress.Case{{Protocol: protocol(t, "naive"), Atomicity: model.FreeThreaded, Label: "-threads 2", Scenario: shape(t, 2)}},
		Strategies: strategies, Gosched: []float64{stress.DefaultGosched},
		Trials: 2, Seed: 1, Cap: 10 * time.Second,
	}
	rows, err := stress.Compare(cfg)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.Len(t, rows[0].Cells, len(strategies)+1)
	for _, c := range rows[0].Cells {
		require.Empty(t, c.Err)
		require.Equal(t, 2, c.Found, c.Method)
		require.Positive(t, c.Median, c.Method)
		require.LessOrEqual(t, c.Min, c.Median)
		require.LessOrEqual(t, c.Median, c.Max)
	}
	var b strings.Builder
	require.NoError(t, stress.WriteComparison(&b, rows, cfg))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	for _, s := range strategies {
		require.Contains(t, lines[0], " "+s+" |")
	}
	require.Contains(t, lines[0], "stress -gosched 0.1 |")
	require.Contains(t, lines[2], "| `naive` | free-threaded | `-threads 2` |")
	require.Regexp(t, `×[0-9.e+]+ \|$`, lines[2])
}

// A case the variant survives shows "none" for every method.
func TestCompareNone(t *testing.T) {
	cfg := stress.CompareConfig{
		Cases:      []stress.Case{{Protocol: protocol(t, "merged"), Atomicity: model.GIL, Label: "-threads 2", Scenario: shape(t, 2)}},
		Strategies: []string{check.StrategyDFS}, Gosched: []float64{0},
		Trials: 3, Seed: 1, Cap: 50 * time.Millisecond,
	}
	rows, err := stress.Compare(cfg)
	require.NoError(t, err)
	for _, c := range rows[0].Cells {
		require.Zero(t, c.Found)
		require.Equal(t, 1, c.Trials, "a cell whose first trial misses stops there")
	}
	var b strings.Builder
	require.NoError(t, stress.WriteComparison(&b, rows, cfg))
	require.Contains(t, b.String(), "none in 50ms")
	require.True(t, strings.HasSuffix(strings.TrimSpace(b.String()), "– |"))
}

// Without a list, Compare times every strategy check knows, whatever the
// list holds when it runs.
func TestCompareEveryStrategy(t *testing.T) {
	rows, err := stress.Compare(stress.CompareConfig{
		Cases:  []stress.Case{{Protocol: protocol(t, "merged"), Atomicity: model.GIL, Label: "-threads 1", Scenario: shape(t, 1)}},
		Trials: 1, Seed: 1, Cap: 100 * time.Millisecond,
	})
	require.NoError(t, err)
	var methods []string
	for _, c := range rows[0].Cells {
		methods = append(methods, c.Method)
	}
	require.Equal(t, check.Strategies, methods)
}
