package sched_test

import (
	"maps"
	"slices"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// What the tests of several files share: the deliberately simple reference
// the searches are checked against, a stateless recursion over every
// interleaving with no visited set and no limits; the running and
// replaying of a search on a toy program; and the random toy programs
// they are checked on.

// runnableOf lists the threads of s that can run, and says whether every
// thread is done.
func runnableOf(s sched.System) (runnable []sched.ThreadID, allDone bool) {
	allDone = true
	for t := range sched.ThreadID(s.NumThreads()) {
		switch s.Status(t) {
		case sched.Runnable:
			runnable = append(runnable, t)
			allDone = false
		case sched.Blocked:
			allDone = false
		}
	}
	return runnable, allDone
}

// endFailure is the failure of a state where no thread can run.
func endFailure(s sched.System, allDone bool) *sched.Failure {
	if !allDone {
		return &sched.Failure{Kind: sched.KindDeadlock}
	}
	return s.Final()
}

// outcomes is what the reference enumeration saw.
type outcomes struct {
	kinds map[string]bool
	// shortest is the fewest steps of any counterexample, counted as
	// Result.Schedule counts them (a failing step counts; an end-state or
	// deadlock failure adds none); -1 when there is none.
	shortest int
}

// enumerate runs every interleaving of s, which is at depth steps from the
// initial state: each execution ends at its first failure, at a deadlock,
// or when every thread is done (then Final runs).
func enumerate(s sched.System, depth int, out *outcomes) {
	found := func(kind string, steps int) {
		out.kinds[kind] = true
		if out.shortest < 0 || steps < out.shortest {
			out.shortest = steps
		}
	}
	runnable, allDone := runnableOf(s)
	if len(runnable) == 0 {
		if f := endFailure(s, allDone); f != nil {
			found(f.Kind, depth)
		}
		return
	}
	for _, t := range runnable {
		c := s.Clone()
		if f := c.Step(t); f != nil {
			found(f.Kind, depth+1)
			continue
		}
		enumerate(c, depth+1, out)
	}
}

// reference enumerates s under a recorder; the recorder's finals are the
// end states, and its kinds (tolerant mode) join the reference's own.
func reference(s sched.System, tolerant bool) (*recorder, outcomes) {
	rec := newRecorder(s, tolerant)
	out := outcomes{kinds: map[string]bool{}, shortest: -1}
	enumerate(rec, 0, &out)
	for k := range rec.kinds {
		out.kinds[k] = true
	}
	return rec, out
}

// enumerations counts the executions the reference enumeration runs from s:
// each ends at its first failure, at a deadlock or when every thread is
// done.
func enumerations(s sched.System) int64 {
	runnable, _ := runnableOf(s)
	if len(runnable) == 0 {
		return 1
	}
	var n int64
	for _, t := range runnable {
		c := s.Clone()
		if c.Step(t) != nil {
			n++
			continue
		}
		n += enumerations(c)
	}
	return n
}

// search runs a strategy on p under a recorder; copying makes the system a
// sched.Copier, whose states the search recycles.
func search(s sched.Strategy, p *program, tolerant, copying bool) (*recorder, sched.Result) {
	rec := newRecorder(newToy(p), tolerant)
	return rec, s.Run(rec.system(copying), sched.Limits{})
}

func sorted(set map[string]bool) []string { return slices.Sorted(maps.Keys(set)) }

// requireReplays checks that a violation's schedule, replayed, fails the
// same way at the same step.
func requireReplays(t require.TestingT, p *program, name string, res sched.Result) {
	got, err := sched.Replay(newToy(p), res.Schedule, sched.Limits{})
	require.NoError(t, err, "%s: replay of %v", name, res.Schedule)
	require.Equal(t, sched.Violation, got.Verdict, "%s: replay of %v", name, res.Schedule)
	require.Equal(t, res.Failure.Kind, got.Failure.Kind, "%s: replay of %v", name, res.Schedule)
	require.True(t, slices.Equal(res.Schedule, got.Schedule), "%s: replay of %v ran %v", name, res.Schedule, got.Schedule)
}

// recipe is the shape of the random programs a generator draws (genOps):
// between fewest and most threads, each of up to maxOps ops and budget ops
// in all, each op on a register drawn first, then of a kind drawn from 0
// to kinds-1: a read below reads, a write below writes, else other's.
type recipe struct {
	regs, locks     int
	fewest, most    int
	maxOps, budget  int
	kinds           int
	reads, writes   int
	other           func(t *rapid.T, th *threadDraw, k, reg int) op
	begin, finished func(t *rapid.T, th *threadDraw) // each thread's, when set
}

// threadDraw is a thread being drawn: its ops so far, the locks it holds
// (most recent last) and, for a blocking program, whether it is a member.
type threadDraw struct {
	ops    []op
	held   []int
	member bool
}

// genOps draws a program by r.
func genOps(t *rapid.T, r recipe) *program {
	p := &program{Regs: r.regs, Locks: r.locks}
	n := rapid.IntRange(r.fewest, r.most).Draw(t, "threads")
	budget := r.budget
	for range n {
		var th threadDraw
		if r.begin != nil {
			r.begin(t, &th)
		}
		size := rapid.IntRange(0, min(r.maxOps, budget)).Draw(t, "ops")
		budget -= size
		for range size {
			reg := rapid.IntRange(0, p.Regs-1).Draw(t, "reg")
			switch k := rapid.IntRange(0, r.kinds-1).Draw(t, "kind"); {
			case k < r.reads:
				th.ops = append(th.ops, op{Kind: opRead, Reg: reg})
			case k < r.writes:
				th.ops = append(th.ops, op{Kind: opWrite, Reg: reg, K: rapid.IntRange(1, 2).Draw(t, "k")})
			default:
				th.ops = append(th.ops, r.other(t, &th, k, reg))
			}
		}
		if r.finished != nil {
			r.finished(t, &th)
		}
		p.Threads = append(p.Threads, th.ops)
	}
	return p
}

// toggleLock is lock 0's acquire when th holds no lock, else its release.
func toggleLock(th *threadDraw) op {
	if len(th.held) == 0 {
		th.held = append(th.held, 0)
		return op{Kind: opAcquire}
	}
	th.held = th.held[:0]
	return op{Kind: opRelease}
}

// assertOp asserts that reg holds a drawn value.
func assertOp(t *rapid.T, reg int) op {
	return op{Kind: opAssert, Reg: reg, V: rapid.IntRange(0, 3).Draw(t, "v")}
}

// genProgram draws 2-3 threads of up to 5 ops each (12 in all, so that the
// reference stays fast) over 2 registers and 1 lock. A thread's lock ops
// mostly pair up (acquire, later release), with the odd stray release; a
// thread may end holding the lock, which can deadlock the others.
func genProgram(t *rapid.T) *program {
	p := genOps(t, recipe{regs: 2, locks: 1, fewest: 2, most: 3, maxOps: 5, budget: 12, kinds: 10, reads: 3, writes: 6,
		other: func(t *rapid.T, th *threadDraw, k, reg int) op {
			switch {
			case k <= 7:
				return toggleLock(th)
			case k == 8:
				return assertOp(t, reg)
			}
			th.held = th.held[:0]
			return op{Kind: opRelease} // stray: fails unless held
		}})
	drawFinalCheck(t, p)
	return p
}

// genLockProgram draws 2-4 threads of up to 4 ops each (12 in all) over 2
// registers and 2 locks, nested in either order, so that threads block on
// each other often and can deadlock: the races of blocked threads matter.
func genLockProgram(t *rapid.T) *program {
	p := genOps(t, recipe{regs: 2, locks: 2, fewest: 2, most: 4, maxOps: 4, budget: 12, kinds: 10, reads: 2, writes: 5,
		other: func(t *rapid.T, th *threadDraw, k, reg int) op {
			switch {
			case k <= 7 && len(th.held) < 2:
				l := rapid.IntRange(0, 1).Draw(t, "lock")
				if slices.Contains(th.held, l) {
					l = 1 - l
				}
				th.held = append(th.held, l)
				return op{Kind: opAcquire, L: l}
			case k <= 8 && len(th.held) > 0:
				l := th.held[len(th.held)-1]
				th.held = th.held[:len(th.held)-1]
				return op{Kind: opRelease, L: l}
			}
			return assertOp(t, reg)
		}})
	drawFinalCheck(t, p)
	return p
}

// generators are the random programs DPOR and Bounded are checked on.
var generators = []struct {
	name string
	gen  *rapid.Generator[*program]
}{
	{"mixed", rapid.Custom(genProgram)},
	{"locks", rapid.Custom(genLockProgram)},
}

// drawFinalCheck draws whether p's end state fails, and when: on which
// register holding which value.
func drawFinalCheck(t *rapid.T, p *program) {
	if rapid.Bool().Draw(t, "final check") {
		p.FinalCheck = true
		p.FinalReg = rapid.IntRange(0, p.Regs-1).Draw(t, "final reg")
		p.FinalV = rapid.IntRange(0, 4).Draw(t, "final v")
	}
}

// pathEnds enumerates every schedule from s (last ran last, used
// preemptions so far) and calls end with each one's preemptions and
// whether it failed (a step, the end state or a deadlock), at its end: a
// failing step, or a state where no thread can run.
func pathEnds(s sched.System, last sched.ThreadID, used int, end func(preemptions int, failed bool)) {
	runnable, allDone := runnableOf(s)
	if len(runnable) == 0 {
		end(used, endFailure(s, allDone) != nil)
		return
	}
	for _, t := range runnable {
		n := used
		if preempts(runnable, last, t) {
			n++
		}
		c := s.Clone()
		if c.Step(t) != nil {
			end(n, true)
			continue
		}
		pathEnds(c, t, n, end)
	}
}
