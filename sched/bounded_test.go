package sched_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// Bounded is checked against two brute-force references on small toy
// programs: the fewest preemptions of any failing schedule, by enumerating
// every schedule, and the first bound under which no preemption is ever
// passed over, by a shortest-path search over (state, last thread) pairs.

// preempts is the reference's preemption: a switch away from a thread that
// could still run.
func preempts(runnable []sched.ThreadID, last, t sched.ThreadID) bool {
	if last < 0 || t == last {
		return false
	}
	for _, r := range runnable {
		if r == last {
			return true
		}
	}
	return false
}

// fewestPreemptions is the fewest preemptions of a failing schedule from s
// (last ran last, used preemptions so far), or -1 when none fails.
func fewestPreemptions(s sched.System, last sched.ThreadID, used int) int {
	best := -1
	pathEnds(s, last, used, func(n int, failed bool) {
		if failed && (best < 0 || n < best) {
			best = n
		}
	})
	return best
}

// unboundedAt is the first bound P under which Bounded passes over no
// preemption: the smallest P such that no (state, last) pair whose
// cheapest path has P preemptions can preempt. Executions end at failures.
func unboundedAt(init sched.System) int {
	type node struct {
		s    sched.System
		last sched.ThreadID
		dist int
	}
	key := func(s sched.System, last sched.ThreadID) string {
		return string(binary.LittleEndian.AppendUint32(s.AppendKey(nil), uint32(last)))
	}
	dist := map[string]int{key(init, -1): 0}
	canPreempt := map[int]bool{}
	// 0-1 breadth-first search: cost-0 steps go to the front.
	deque := []node{{s: init.Clone(), last: -1}}
	for len(deque) > 0 {
		n := deque[0]
		deque = deque[1:]
		if dist[key(n.s, n.last)] < n.dist {
			continue
		}
		runnable, _ := runnableOf(n.s)
		for _, t := range runnable {
			cost := 0
			if preempts(runnable, n.last, t) {
				cost = 1
				canPreempt[n.dist] = true
			}
			c := n.s.Clone()
			if c.Step(t) != nil {
				continue
			}
			k := key(c, t)
			if d, ok := dist[k]; ok && d <= n.dist+cost {
				continue
			}
			dist[k] = n.dist + cost
			if cost == 0 {
				deque = append([]node{{c, t, n.dist}}, deque...)
			} else {
				deque = append(deque, node{c, t, n.dist + 1})
			}
		}
	}
	p := 0
	for canPreempt[p] {
		p++
	}
	return p
}

func TestBoundedAgreesWithBruteForce(t *testing.T) {
	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			count := map[sched.Verdict]int{}
			rapid.Check(t, func(t *rapid.T) {
				p := g.gen.Draw(t, "program")
				fewest := fewestPreemptions(newToy(p), -1, 0)
				unbounded := unboundedAt(newToy(p))
				for bound := range 4 {
					name := fmt.Sprintf("bound %d (fewest %d, unbounded at %d)", bound, fewest, unbounded)
					res := sched.Bounded{MaxPreemptions: bound}.Run(newToy(p), sched.Limits{})
					count[res.Verdict]++
					switch {
					case fewest >= 0 && fewest <= bound:
						require.Equal(t, sched.Violation, res.Verdict, name)
						require.Equal(t, fewest, res.Preemptions, "%s: %v", name, res.Schedule)
						require.Equal(t, fewest, sched.CountPreemptions(newToy(p), res.Schedule), "%s: %v", name, res.Schedule)
						requireReplays(t, p, name, res)
					case unbounded <= bound:
						require.Equal(t, sched.Verified, res.Verdict, name)
						require.True(t, res.Complete, name)
						require.Equal(t, unbounded, res.Preemptions, name)
					default:
						require.Equal(t, sched.NoViolationFound, res.Verdict, name)
						require.True(t, res.Complete, name)
						want := fmt.Sprintf("all schedules with at most %d preemptions", bound)
						if bound == 1 {
							want = "all schedules with at most 1 preemption"
						}
						require.Equal(t, want, res.Cut, name)
					}
				}

				// With a bound no toy program reaches, failures hidden:
				// the end states and failures of the enumeration.
				tolRec, tol := reference(newToy(p), true)
				rec, res := search(sched.Bounded{MaxPreemptions: 20}, p, true, true)
				if tol.kinds[sched.KindDeadlock] {
					require.Equal(t, sched.Violation, res.Verdict)
					require.Equal(t, sched.KindDeadlock, res.Failure.Kind)
					return
				}
				require.Equal(t, sched.Verified, res.Verdict)
				require.Equal(t, sorted(tol.kinds), sorted(rec.kinds))
				require.Equal(t, sorted(tolRec.finals), sorted(rec.finals))
			})
			t.Logf("verdicts under bounds 0-3: %v", count)
		})
	}
}

func TestBoundedPrograms(t *testing.T) {
	tests := []struct {
		name        string
		p           *program
		preemptions int // -1: no violation
		kind        string
	}{
		{name: "after the end is free", p: toy("w0+1", "f0=1"), preemptions: 0, kind: kindAssert},
		{name: "between two writes", p: toy("w0+1 w0+2", "f0=1"), preemptions: 1, kind: kindAssert},
		{name: "lock order deadlock", p: toy("a0 a1 u1 u0", "a1 a0 u0 u1"), preemptions: 1, kind: sched.KindDeadlock},
		// T1 must read T0's first write, and T0 must read T1's first write
		// before its second: into T1, and back out of it.
		{name: "two switches", p: finalFails(toy("w0+1 r1 w2+0", "r0 w1+1 w1+5"), 2, 2), preemptions: 2, kind: kindFinal},
		{name: "no bug", p: toy("a0 r0 w0+1 u0", "a0 r0 w0+1 u0"), preemptions: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.preemptions, fewestPreemptions(newToy(tt.p), -1, 0), "the brute force")
			for bound := range 4 {
				res := sched.Bounded{MaxPreemptions: bound}.Run(newToy(tt.p), sched.Limits{})
				if tt.preemptions < 0 || bound < tt.preemptions {
					require.NotEqual(t, sched.Violation, res.Verdict, "bound %d", bound)
					continue
				}
				require.Equal(t, sched.Violation, res.Verdict, "bound %d", bound)
				require.Equal(t, tt.kind, res.Failure.Kind)
				require.Equal(t, tt.preemptions, res.Preemptions)
				require.Equal(t, tt.preemptions, sched.CountPreemptions(newToy(tt.p), res.Schedule))
			}
		})
	}
}

func TestCountPreemptions(t *testing.T) {
	p := toy("a0 u0", "r0 a0 u0", "r1")
	tests := []struct {
		name     string
		schedule []sched.ThreadID
		want     int
	}{
		{name: "empty", want: 0},
		{name: "one thread after another", schedule: []sched.ThreadID{1, 1, 1, 0, 0, 2}, want: 0},
		{name: "switch while runnable", schedule: []sched.ThreadID{1, 0, 2, 0, 1, 1}, want: 2},
		// T1 blocks on the lock T0 holds: switching back to T0 is free,
		// and so is leaving a thread that is done.
		{name: "switch when blocked", schedule: []sched.ThreadID{0, 1, 0, 1, 1, 2}, want: 1},
		{name: "counted up to a thread not runnable", schedule: []sched.ThreadID{0, 1, 7, 0}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, sched.CountPreemptions(newToy(p), tt.schedule))
		})
	}
}

// T1 must check r0 between T0's two writes: one preemption, which the
// counterexample has.
func ExampleBounded() {
	p := toy("w0+1 w0+2", "f0=1")
	res := sched.Bounded{MaxPreemptions: 2}.Run(newToy(p), sched.Limits{})
	fmt.Println(res.Verdict, res.Schedule, res.Preemptions, "preemption")
	res = sched.Bounded{MaxPreemptions: 0}.Run(newToy(p), sched.Limits{})
	fmt.Printf("%s: %s\n", res.Verdict, res.Cut)
	// Output:
	// violation [0 1] 1 preemption
	// no-violation-found: all schedules with at most 0 preemptions
}
