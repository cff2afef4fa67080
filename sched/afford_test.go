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
// tables from 1 MiB; fan's 4 threads of 60 steps have 61^4 states, and
// 635,376 up to symmetry, more than the table before holds with room to
// spare (a set grows whatever Afford says until it has that room: see
// visitedSet.refuse).
func TestAffordRefusesTheNextTable(t *testing.T) {
	for _, s := range []sched.Strategy{
		sched.DFS{}, sched.States{}, sched.BFS{},
		sched.Parallel{Workers: 2}, sched.Parallel{Workers: 2, Symmetry: true},
	} {
		t.Run(fmt.Sprintf("%s/%+v", s.Name(), s), func(t *testing.T) {
			if p, ok := s.(sched.Parallel); raceDetector && !(ok && p.Workers > 1) {
				t.Skip("one goroutine: run without the race detector")
			}
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
			res := s.Run(newFan(4, 60), lim)
			require.Equal(t, sched.Incomplete, res.Verdict)
			require.Positive(t, asked.Load())
			require.Less(t, res.Stats.MemoryBytes, asked.Load())
		})
	}
}
