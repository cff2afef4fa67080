package sched_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// DPOR is checked like the stateful searches, against the stateless
// enumeration of every interleaving (helpers_test.go), with one more
// promise: it runs no more executions than the enumeration.

// dporMismatch compares a DPOR-like search with the enumeration on the
// system build makes and says how they differ ("" when they agree): on
// the verdict when failures end the search; with failures hidden, on the
// failure kinds and the end states.
func dporMismatch(s sched.Strategy, build func() sched.System) string {
	_, ref := reference(build(), false)
	res := s.Run(build(), sched.Limits{})
	if (len(ref.kinds) > 0) != (res.Verdict == sched.Violation) {
		return fmt.Sprintf("verdict %s, the enumeration found %v", res.Verdict, sorted(ref.kinds))
	}
	tolRec, tol := reference(build(), true)
	rec := newRecorder(build(), true)
	res = s.Run(rec, sched.Limits{})
	if tol.kinds[sched.KindDeadlock] {
		if res.Verdict != sched.Violation || res.Failure.Kind != sched.KindDeadlock {
			return fmt.Sprintf("failures hidden: verdict %s, the enumeration deadlocks", res.Verdict)
		}
		return ""
	}
	if !slices.Equal(sorted(tol.kinds), sorted(rec.kinds)) {
		return fmt.Sprintf("failures hidden: kinds %v, the enumeration's %v", sorted(rec.kinds), sorted(tol.kinds))
	}
	if !slices.Equal(sorted(tolRec.finals), sorted(rec.finals)) {
		return fmt.Sprintf("failures hidden: %d end states, the enumeration's %d", len(rec.finals), len(tolRec.finals))
	}
	return ""
}

func TestDPORAgreesWithEnumeration(t *testing.T) {
	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			var dporRuns, enumRuns, sleepBlocked int64
			var verified, violations int
			rapid.Check(t, func(t *rapid.T) {
				p := g.gen.Draw(t, "program")
				refRec, ref := reference(newToy(p), false)
				tolRec, tol := reference(newToy(p), true)
				for _, copying := range []bool{false, true} {
					name := fmt.Sprintf("dpor (recycling states: %v)", copying)
					dfsRec, dfs := search(sched.DFS{}, p, false, copying)
					rec, res := search(sched.DPOR{}, p, false, copying)
					require.Zero(t, res.Stats.States, name)
					require.Equal(t, dfs.Verdict, res.Verdict, "%s: dfs says %s (%+v), dpor %+v", name, dfs.Verdict, dfs.Failure, res.Failure)
					if len(ref.kinds) == 0 {
						require.Equal(t, sched.Verified, res.Verdict, name)
						require.True(t, res.Complete, name)
						require.Equal(t, sorted(refRec.finals), sorted(rec.finals), "%s end states", name)
						require.Equal(t, sorted(dfsRec.finals), sorted(rec.finals), "%s end states", name)
						require.LessOrEqual(t, res.Stats.Executions, enumerations(newToy(p)), name)
						if !copying {
							verified++
						}
					} else {
						require.Equal(t, sched.Violation, res.Verdict, name)
						require.False(t, res.Complete, name)
						require.Contains(t, ref.kinds, res.Failure.Kind, name)
						requireReplays(t, p, name, res)
						if !copying {
							violations++
						}
					}

					// Failures hidden: every failure kind and end state of the
					// enumeration, in no more executions.
					rec, res = search(sched.DPOR{}, p, true, copying)
					if tol.kinds[sched.KindDeadlock] {
						require.Equal(t, sched.Violation, res.Verdict, name)
						require.Equal(t, sched.KindDeadlock, res.Failure.Kind, name)
						continue
					}
					require.Equal(t, sched.Verified, res.Verdict, name)
					require.Equal(t, sorted(tol.kinds), sorted(rec.kinds), "%s failure kinds", name)
					require.Equal(t, sorted(tolRec.finals), sorted(rec.finals), "%s end states", name)
					all := enumerations(newRecorder(newToy(p), true))
					require.LessOrEqual(t, res.Stats.Executions, all, name)
					if !copying {
						dporRuns += res.Stats.Executions
						sleepBlocked += res.Stats.SleepBlocked
						enumRuns += all
					}
				}
			})
			t.Logf("%d programs verified, %d with a violation; failures hidden: dpor ran %d executions (%d sleep-blocked), the enumeration %d",
				verified, violations, dporRuns, sleepBlocked, enumRuns)
		})
	}
}

// Each deliberately broken DPOR misses an outcome on some small program:
// the property above has the teeth to catch a reduction that drops
// backtrack points.
func TestBrokenDPORCaught(t *testing.T) {
	broken := []struct {
		name string
		s    sched.Strategy
	}{
		{"no races", sched.DPORNoRaces},
		{"no blocked threads", sched.DPORNoBlocked},
		{"reversible races only", sched.DPORReversibleOnly},
	}
	type sample struct {
		name  string
		ops   int
		build func() sched.System
	}
	const cases = 150
	var samples []sample
	for _, g := range generators {
		for seed := range cases {
			p := g.gen.Example(seed)
			samples = append(samples, sample{p.String(), ops(p), func() sched.System { return newToy(p) }})
		}
	}
	for seed := range cases {
		p := rapid.Custom(genBlockingProgram).Example(seed)
		samples = append(samples, sample{p.String(), ops(p.program), func() sched.System { return newBlocking(p) }})
	}
	for _, b := range broken {
		t.Run(b.name, func(t *testing.T) {
			caught, smallest := 0, -1
			for i, c := range samples {
				if m := dporMismatch(b.s, c.build); m != "" {
					caught++
					if smallest < 0 || c.ops < samples[smallest].ops {
						smallest = i
						t.Logf("caught on %s: %s", c.name, m)
					}
				}
			}
			require.Positive(t, caught, "%d programs and the broken search agreed with the enumeration on all", len(samples))
			t.Logf("caught on %d of %d programs", caught, len(samples))
		})
	}
}

func ops(p *program) int {
	n := 0
	for _, t := range p.Threads {
		n += len(t)
	}
	return n
}

func TestDPORPrograms(t *testing.T) {
	tests := []struct {
		name string
		p    *program
		// executions: what DPOR runs (failures hidden), finals: the end
		// states it reaches, kind: the failure when it must find one.
		executions, sleepBlocked int64
		finals                   int
		kind                     string
	}{
		{name: "independent threads run once", p: wide, executions: 1, finals: 1},
		{name: "two writes, two orders", p: toy("w0+1", "w0+2"), executions: 2, finals: 2},
		{name: "reads commute", p: toy("r0 r0", "r0", "r0 r0"), executions: 1, finals: 1},
		// The second acquire blocks; only the blocked thread's race with
		// the first acquire puts it first.
		{name: "lock order", p: toy("a0 w0+1 u0", "a0 w0+2 u0"), executions: 2, finals: 2},
		// The release's race with the acquire cannot be reversed, but
		// asks for r1 first all the same (an initial that can run): one
		// execution more, which the sleep set then abandons.
		{name: "lock order, late acquire", p: toy("a0 w0+1 u0", "r1 a0 w0+2 u0"), executions: 3, sleepBlocked: 1, finals: 2},
		{name: "deadlock", p: toy("a0 a1 u1 u0", "a1 a0 u0 u1"), kind: sched.KindDeadlock},
		{name: "assert between writes", p: toy("w0+1 w0+2", "f0=1"), kind: kindAssert},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, res := search(sched.DPOR{}, tt.p, true, true)
			if tt.kind != "" {
				if res.Verdict == sched.Verified {
					require.Contains(t, rec.kinds, tt.kind)
				} else {
					require.Equal(t, tt.kind, res.Failure.Kind)
				}
				res = sched.DPOR{}.Run(newToy(tt.p), sched.Limits{})
				require.Equal(t, sched.Violation, res.Verdict)
				require.Equal(t, tt.kind, res.Failure.Kind)
				requireReplays(t, tt.p, "dpor", res)
				return
			}
			require.Equal(t, sched.Verified, res.Verdict)
			require.Equal(t, tt.executions, res.Stats.Executions)
			require.Equal(t, tt.sleepBlocked, res.Stats.SleepBlocked)
			require.Len(t, rec.finals, tt.finals)
			require.Zero(t, res.Stats.States)
		})
	}
}

// Two threads add to r0 under a lock, a third reads r1: of the 30 orders
// of their steps, DPOR runs one per order of the two critical sections.
func ExampleDPOR() {
	p := toy("a0 r0 w0+1 u0", "a0 r0 w0+1 u0", "r1")
	res := sched.DPOR{}.Run(newToy(p), sched.Limits{})
	fmt.Println(res.Verdict, res.Stats.Executions, "executions,", res.Stats.SleepBlocked, "abandoned asleep")
	// Output: verified 2 executions, 0 abandoned asleep
}
