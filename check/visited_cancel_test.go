package check_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// Limits.Cancel reaches the visited set of every stateful search. A
// Cancel that always says yes, while Stop (against Cancel's contract)
// never does, makes the set skip the grows its table has room for: it
// is asked, and the search still ends with the counts of a search
// without it, since the table grows once that room runs out.
//
// The searches store over 196,608 states (the most a table of 256K
// entries holds when one user asks it to grow with room to spare): merged
// with five threads, and with nine under symmetry reduction. Under the
// race detector (CI runs both), only the searches with two workers run:
// the others take two minutes there and share nothing between goroutines.
// By default one search runs (the parallel states search of nine
// threads, whose two workers share the table); SWAPCHECK_LONG=1 runs all
// six.
func TestCancelReachesTheVisitedSet(t *testing.T) {
	tests := []struct {
		name     string
		threads  int
		symmetry bool
		strategy sched.Strategy
	}{
		{"dfs", 5, false, sched.DFS{}},
		{"parallel dfs, 1 worker", 5, false, sched.Parallel{Workers: 1}},
		{"parallel dfs, 2 workers", 5, false, sched.Parallel{Workers: 2}},
		{"bfs", 5, false, sched.BFS{}},
		{"states", 9, true, sched.States{}},
		{"parallel states, 2 workers", 9, true, sched.Parallel{Workers: 2, Symmetry: true}},
	}
	want := map[bool]sched.Result{}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s, %d threads", tt.name, tt.threads), func(t *testing.T) {
			if p, ok := tt.strategy.(sched.Parallel); raceDetector && !(ok && p.Workers > 1) {
				t.Skip("one goroutine: run without the race detector")
			}
			if !testenv.Long() && !raceDetector && tt.name != "parallel states, 2 workers" {
				t.Skip("SWAPCHECK_LONG=1 runs it")
			}
			sc, err := scenario.Shape{Threads: tt.threads, Blocks: 1, Calls: 1, Modules: 1, Names: 1}.Build()
			require.NoError(t, err)
			merged, err := check.Lookup("merged")
			require.NoError(t, err)
			prog, err := model.NewProgram(sc, merged, model.GIL)
			require.NoError(t, err)
			w, ok := want[tt.symmetry]
			if !ok { // the counts without Cancel, the same for every strategy here
				w = sched.Parallel{Workers: 2, Symmetry: tt.symmetry}.Run(check.NewSystem(prog), sched.Limits{})
				want[tt.symmetry] = w
			}
			var asked atomic.Int64
			got := tt.strategy.Run(check.NewSystem(prog), sched.Limits{Cancel: func() bool { asked.Add(1); return true }})
			require.Positive(t, asked.Load(), "Cancel never asked")
			require.Equal(t, sched.Verified, got.Verdict)
			require.Equal(t, w.Stats.States, got.Stats.States)
			require.Equal(t, w.Stats.Steps, got.Stats.Steps)
		})
	}
}
