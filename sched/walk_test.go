package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// A random or pct search of one run that finds no violation keeps its
// walk, which replays to the same end; with more runs it keeps none, and
// a replay keeps the schedule it ran.
func TestOneWalkKeepsItsSchedule(t *testing.T) {
	p := toy("w0+1 r0", "w0+2 r0")
	for _, tc := range []struct {
		name string
		s    sched.Strategy
		keep bool
	}{
		{"random, one run", sched.Random{Runs: 1, Chooser: sched.NewSeeded(3)}, true},
		{"pct, one run", sched.PCT{Runs: 1, Depth: 2, Chooser: sched.NewSeeded(3)}, true},
		{"random, two runs", sched.Random{Runs: 2, Chooser: sched.NewSeeded(3)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.s.Run(newToy(p), sched.Limits{})
			require.Equal(t, sched.NoViolationFound, res.Verdict)
			require.Empty(t, res.Schedule)
			if !tc.keep {
				require.Empty(t, res.Walk)
				return
			}
			require.Len(t, res.Walk, 4)
			again, err := sched.Replay(newToy(p), res.Walk, sched.Limits{})
			require.NoError(t, err)
			require.Equal(t, sched.NoViolationFound, again.Verdict)
			require.Equal(t, res.Walk, again.Walk)
		})
	}
}
