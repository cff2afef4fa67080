package sched_test

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// Every strategy's preemption statistics (Stats.PreemptionsMin, Max, Sum)
// are checked against CountPreemptions, recomputed on each execution's
// schedule. The stateful searches merge paths at states already visited,
// where what a path counts depends on the search's order; on a system
// keyed by its whole schedule no two paths meet, so they run every
// schedule once and must count what enumerating every schedule counts.

// preemptionStats is what the tests compare: the executions and their
// preemptions' min, max and sum.
type preemptionStats struct {
	Executions int64
	Min, Max   int
	Sum        int64
}

func statsOf(st sched.Stats) preemptionStats {
	return preemptionStats{st.Executions, st.PreemptionsMin, st.PreemptionsMax, st.PreemptionsSum}
}

// countAll is the reference: CountPreemptions of every schedule, from p's
// initial state.
func countAll(p *program, schedules [][]sched.ThreadID) preemptionStats {
	var s preemptionStats
	for i, sc := range schedules {
		n := sched.CountPreemptions(newToy(p), sc)
		if i == 0 || n < s.Min {
			s.Min = n
		}
		s.Max = max(s.Max, n)
		s.Sum += int64(n)
		s.Executions++
	}
	return s
}

// pathSystem is a toy that remembers the schedule that led to it. With
// tree set its key holds that schedule too, so no two paths meet; with
// ends set, every execution that ends with all threads done adds its
// schedule there (clones share it; not safe for concurrent searches).
type pathSystem struct {
	sched.System
	path []sched.ThreadID
	tree bool
	ends *[][]sched.ThreadID
}

func (s *pathSystem) Step(t sched.ThreadID) *sched.Failure {
	s.path = append(s.path, t)
	return s.System.Step(t)
}

func (s *pathSystem) Final() *sched.Failure {
	if s.ends != nil {
		*s.ends = append(*s.ends, slices.Clone(s.path))
	}
	return s.System.Final()
}

func (s *pathSystem) AppendKey(b []byte) []byte {
	b = s.System.AppendKey(b)
	if s.tree {
		for _, t := range s.path {
			b = binary.LittleEndian.AppendUint32(b, uint32(t))
		}
	}
	return b
}

func (s *pathSystem) Clone() sched.System {
	c := *s
	c.System, c.path = s.System.Clone(), slices.Clone(s.path)
	return &c
}

// allSchedules lists every schedule of s run until no thread can run.
func allSchedules(s sched.System, prefix []sched.ThreadID, out *[][]sched.ThreadID) {
	runnable, _ := runnableOf(s)
	if len(runnable) == 0 {
		*out = append(*out, slices.Clone(prefix))
		return
	}
	for _, t := range runnable {
		c := s.Clone()
		if c.Step(t) != nil {
			panic("allSchedules: a step failed; the reference wants programs that cannot fail")
		}
		allSchedules(c, append(prefix, t), out)
	}
}

// boundedReference is what Bounded counts when no two paths meet and the
// round with bound P = max(counts) is the first that passes over no
// preemption: round r runs every schedule with at most r preemptions.
func boundedReference(counts []int) preemptionStats {
	var s preemptionStats
	for r := 0; r <= slices.Max(counts); r++ {
		for _, n := range counts {
			if n <= r {
				s.Executions++
				s.Max = max(s.Max, n)
				s.Sum += int64(n)
			}
		}
	}
	return s // Min is 0: the schedule that never preempts is in every round
}

// exhaustiveOnTree runs the exhaustive searches on p keyed by schedule and
// requires each to count what enumerating every schedule counts.
func exhaustiveOnTree(t require.TestingT, p *program) preemptionStats {
	var schedules [][]sched.ThreadID
	allSchedules(newToy(p), nil, &schedules)
	want := countAll(p, schedules)
	tree := func() sched.System { return &pathSystem{System: newToy(p), tree: true} }
	for _, s := range []sched.Strategy{
		sched.DFS{}, sched.States{}, sched.BFS{},
		sched.Parallel{Workers: 1}, sched.Parallel{Workers: 3},
	} {
		res := s.Run(tree(), sched.Limits{})
		require.Equal(t, sched.Verified, res.Verdict, "%s on %s", s.Name(), p)
		require.Equal(t, want, statsOf(res.Stats), "%s on %s", s.Name(), p)
	}
	counts := make([]int, len(schedules))
	for i, sc := range schedules {
		counts[i] = sched.CountPreemptions(newToy(p), sc)
	}
	res := sched.Bounded{MaxPreemptions: slices.Max(counts) + 1}.Run(tree(), sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict, "bounded on %s", p)
	require.Equal(t, boundedReference(counts), statsOf(res.Stats), "bounded on %s", p)
	return want
}

// recorded runs s on p recording the schedule of every execution that
// ends, and requires the stats to be what CountPreemptions gives on those.
// It reports whether it compared (DPOR's executions abandoned asleep
// never end, so they are not recorded: then it compares nothing).
func recorded(t require.TestingT, s sched.Strategy, p *program) (preemptionStats, bool) {
	var ends [][]sched.ThreadID
	res := s.Run(&pathSystem{System: newToy(p), ends: &ends}, sched.Limits{})
	require.NotEqual(t, sched.Violation, res.Verdict, "%s on %s", s.Name(), p)
	if res.Stats.SleepBlocked > 0 {
		return preemptionStats{}, false
	}
	want := countAll(p, ends)
	require.Equal(t, want, statsOf(res.Stats), "%s on %s", s.Name(), p)
	return want, true
}

func walkers(seed uint64) []sched.Strategy {
	return []sched.Strategy{
		sched.Random{Runs: 50, Chooser: sched.NewSeeded(seed)},
		// Length set: EstimateLength's walk would be recorded too.
		sched.PCT{Depth: 3, Runs: 50, Chooser: sched.NewSeeded(seed), Length: 8},
	}
}

func TestPreemptionStats(t *testing.T) {
	tests := []struct {
		name    string
		p       *program
		maxWant int // the most preemptions of any schedule
	}{
		{"one thread never preempts", toy("r0 w0+1 r0"), 0},
		{"two threads of one step", toy("w0+1", "w0+2"), 0},
		{"racing increments", toy("r0 w0+1", "r0 w0+1"), 2},
		{"three threads", toy("r0 w0+1", "r1 w1+1", "r0 w1+2"), 3},
		{"a lock makes every switch free", toy("a0 r0 w0+1 u0", "a0 r0 w0+1 u0"), 0},
		{"switches outside a lock", toy("r1 a0 r0 w0+1 u0", "a0 r0 w0+1 u0 w1+1"), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := exhaustiveOnTree(t, tt.p)
			require.Zero(t, want.Min, "the schedule that never preempts")
			require.Equal(t, tt.maxWant, want.Max)
			for _, s := range walkers(1) {
				got, _ := recorded(t, s, tt.p)
				require.Equal(t, int64(50), got.Executions, s.Name())
			}
			if got, ok := recorded(t, sched.DPOR{}, tt.p); ok {
				require.LessOrEqual(t, got.Max, tt.maxWant, "dpor")
			}
		})
	}
}

// Random and PCT on a racy program: some walks preempt, so the stats say
// so; the same seed gives the same stats.
func TestPreemptionStatsOfWalks(t *testing.T) {
	p := toy("r0 w0+1 r1 w1+1", "r1 w1+2 r0 w0+2", "r0 w1+3")
	for i, s := range walkers(7) {
		t.Run(s.Name(), func(t *testing.T) {
			got, _ := recorded(t, s, p)
			require.Positive(t, got.Max)
			again, _ := recorded(t, walkers(7)[i], p)
			require.Equal(t, got, again)
		})
	}
}

// genSafeProgram draws 2-3 threads of up to 7 ops in all over 2 registers
// and 1 lock, each acquire released later in its thread: no step fails and
// nothing deadlocks, so every schedule runs to its end.
func genSafeProgram(t *rapid.T) *program {
	return genOps(t, recipe{regs: 2, locks: 1, fewest: 2, most: 3, maxOps: 4, budget: 7, kinds: 10, reads: 4, writes: 8,
		other: func(_ *rapid.T, th *threadDraw, _, _ int) op { return toggleLock(th) },
		finished: func(_ *rapid.T, th *threadDraw) {
			if len(th.held) > 0 {
				th.ops = append(th.ops, toggleLock(th))
			}
		}})
}

func TestPreemptionStatsAgreeWithEnumeration(t *testing.T) {
	var dporCompared int
	rapid.Check(t, func(t *rapid.T) {
		p := genSafeProgram(t)
		exhaustiveOnTree(t, p)
		for _, s := range walkers(rapid.Uint64().Draw(t, "seed")) {
			recorded(t, s, p)
		}
		if _, ok := recorded(t, sched.DPOR{}, p); ok {
			dporCompared++
		}
	})
	t.Logf("dpor compared on %d programs (the others abandoned an execution asleep)", dporCompared)
}

// mostPreemptions is the most preemptions of any path from s, last having
// run last and used preemptions made so far, each path ending at a failure
// or where no thread can run.
func mostPreemptions(s sched.System, last sched.ThreadID, used int) int {
	most := used
	pathEnds(s, last, used, func(n int, _ bool) { most = max(most, n) })
	return most
}

// Where paths meet and failures end the search, an execution counts the
// preemptions of a real path, so no more than the most of any; a search
// that finished ran the path that never preempts.
func TestPreemptionStatsWithinBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram(t)
		most := mostPreemptions(newToy(p), -1, 0)
		for _, s := range append([]sched.Strategy{
			sched.DFS{}, sched.BFS{}, sched.DPOR{}, sched.Bounded{MaxPreemptions: 2}, sched.Parallel{Workers: 2},
		}, walkers(1)...) {
			res := s.Run(newToy(p), sched.Limits{})
			st := res.Stats
			require.Positive(t, st.Executions, s.Name())
			require.LessOrEqual(t, 0, st.PreemptionsMin, s.Name())
			require.LessOrEqual(t, float64(st.PreemptionsMin), st.PreemptionsMean(), s.Name())
			require.LessOrEqual(t, st.PreemptionsMean(), float64(st.PreemptionsMax), s.Name())
			require.LessOrEqual(t, st.PreemptionsMax, most, "%s on %s", s.Name(), p)
			if res.Verdict == sched.Verified {
				require.Zero(t, st.PreemptionsMin, "%s on %s", s.Name(), p)
			}
		}
	})
}

func TestAddExecutions(t *testing.T) {
	a := sched.Stats{Executions: 2, PreemptionsMin: 1, PreemptionsMax: 3, PreemptionsSum: 4}
	b := sched.Stats{Executions: 3, PreemptionsMin: 0, PreemptionsMax: 2, PreemptionsSum: 3}
	var sum sched.Stats
	sum.AddExecutions(a)
	require.Equal(t, a, sum, "added to nothing")
	sum.AddExecutions(sched.Stats{})
	require.Equal(t, a, sum, "nothing added")
	sum.AddExecutions(b)
	require.Equal(t, sched.Stats{Executions: 5, PreemptionsMin: 0, PreemptionsMax: 3, PreemptionsSum: 7}, sum)
	require.InDelta(t, 1.4, sum.PreemptionsMean(), 1e-9)
	require.Zero(t, sched.Stats{}.PreemptionsMean())
}
