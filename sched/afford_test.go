package sched_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// A visited set asks Limits.Afford before it grows, and a refusal keeps
// the table it has: the search ends (Stop and Cancel say so from then
// on) without ever holding the table it asked for. Afford refuses
// tables from 1 MiB; fan's 12 threads of 9 steps have 10^12 states, and
// 293,930 up to symmetry, more than a table of that size holds.
func TestAffordRefusesTheNextTable(t *testing.T) {
	for _, s := range []sched.Strategy{
		sched.DFS{}, sched.States{}, sched.BFS{},
		sched.Parallel{Workers: 2}, sched.Parallel{Workers: 2, Symmetry: true},
	} {
		t.Run(fmt.Sprintf("%s/%+v", s.Name(), s), func(t *testing.T) {
			var refused atomic.Bool
			var asked atomic.Int64
			lim := sched.Limits{
				Afford: func(bytes int64) bool {
					if bytes < 1<<20 {
						return true
					}
					asked.Store(bytes)
					refused.Store(true)
					return false
				},
				Stop:   refused.Load,
				Cancel: refused.Load,
			}
			res := s.Run(newFan(12, 9), lim)
			require.Equal(t, sched.Incomplete, res.Verdict)
			require.Positive(t, asked.Load())
			require.Less(t, res.Stats.MemoryBytes, asked.Load())
		})
	}
}
