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

// TestCompareProgressAndStop: Progress hears of every cell, in order; once
// Stop is true, the trial under way is dropped and Compare returns the
// rows it began, the cells it did not get to without trials, and the
// table renders them.
func TestCompareProgressAndStop(t *testing.T) {
	cases := []stress.Case{
		{Protocol: protocol(t, "naive"), Atomicity: model.GIL, Label: "-threads 2", Scenario: shape(t, 2)},
		{Protocol: protocol(t, "refcount-del"), Atomicity: model.GIL, Label: "-threads 2", Scenario: shape(t, 2)},
	}
	strats := []string{check.StrategyDFS, check.StrategyBFS}
	tests := []struct {
		name      string
		stopAfter int // cells before Stop turns true (0: never)
		rows      int
		measured  int
	}{
		{"to the end", 0, 2, 6},
		{"stopped after the first cell", 1, 1, 1},
		{"stopped after the first row", 3, 1, 3},
		{"stopped after four cells", 4, 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var heard []int
			stop := false
			cfg := stress.CompareConfig{
				Cases: cases, Strategies: strats, Gosched: []float64{stress.DefaultGosched},
				Trials: 1, Seed: 1, Cap: 300 * time.Millisecond,
				Stop: func() bool { return stop },
				Progress: func(done, total int, c stress.Case, cell stress.Cell) {
					require.Equal(t, 6, total)
					require.Equal(t, 1, cell.Trials)
					heard = append(heard, done)
					stop = tt.stopAfter > 0 && done >= tt.stopAfter
				},
			}
			rows, err := stress.Compare(cfg)
			require.NoError(t, err)
			require.Len(t, rows, tt.rows)
			measured := 0
			for _, r := range rows {
				require.Len(t, r.Cells, 3, "every column, run or not")
				for _, c := range r.Cells {
					if c.Trials > 0 {
						measured++
					}
				}
			}
			require.Equal(t, tt.measured, measured)
			require.Len(t, heard, tt.measured)
			for i, d := range heard {
				require.Equal(t, i+1, d)
			}
			var b strings.Builder
			require.NoError(t, stress.WriteComparison(&b, rows, cfg))
			require.Equal(t, tt.rows+2, strings.Count(b.String(), "\n"), b.String())
		})
	}
}

// A Stop that turns true during a trial ends that trial early (it is
// passed to the search) and the trial is not counted.
func TestCompareStopEndsATrial(t *testing.T) {
	start := time.Now()
	cfg := stress.CompareConfig{
		// merged has no violation here: each trial would run to the cap
		Cases:      []stress.Case{{Protocol: protocol(t, "merged"), Atomicity: model.GIL, Label: "-threads 4", Scenario: shape(t, 4)}},
		Strategies: []string{check.StrategyRandom}, Gosched: []float64{0},
		Trials: 1, Seed: 1, Cap: time.Minute,
		Stop: func() bool { return time.Since(start) > 200*time.Millisecond },
	}
	rows, err := stress.Compare(cfg)
	require.NoError(t, err)
	require.Less(t, time.Since(start), 30*time.Second, "the stop did not reach the search")
	require.Len(t, rows, 1)
	require.Zero(t, rows[0].Cells[0].Trials, "a trial cut short is not a measurement")
}
