package sched

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Bounded is iterative preemption bounding (CHESS: Musuvathi and Qadeer,
// "Iterative context bounding for systematic testing of multithreaded
// programs", PLDI 2007). A preemption is a switch away from the thread
// that ran last while it could still run; a switch when it blocked or
// finished is free. For P = 0, 1, ..., MaxPreemptions in turn, Bounded
// explores every schedule with at most P preemptions, and stops at the
// first P that fails: its counterexample has the fewest preemptions of
// any (Result.Preemptions), which makes it the easiest to read.
//
// Each round is a depth-first search with a visited set of (state, thread
// that ran last) pairs, each with the most preemptions it had left when
// expanded: a pair reached again with no more left is pruned, which loses
// nothing, since the first visit could do all the second could.
//
// A round in which the bound stopped nothing, no pair's best expansion
// passing over a preemption, explored the whole state space: the verdict
// is then Verified, and Result.Preemptions is that round's bound, the
// most preemptions it takes to reach any (state, last thread) pair.
// Otherwise a search that finds nothing up to
// MaxPreemptions ends NoViolationFound, and Result.Cut says what it
// covered.
//
// Stats add up over the rounds: States counts the (state, last thread)
// pairs each round stored, Matched the steps that reached a pair with no
// more preemptions left than it was expanded with, and the preemption
// statistics are over every round's executions.
type Bounded struct {
	MaxPreemptions int
}

// Name implements Strategy.
func (Bounded) Name() string { return "bounded" }

// Exhaustive implements Strategy: a bounded search proves something only
// when the bound turns out not to matter, which Run reports as Verified.
func (Bounded) Exhaustive() bool { return false }

// Run implements Strategy.
func (b Bounded) Run(init System, lim Limits) Result {
	var res Result
	stop := stopper{stop: lim.Stop}
	stop.weigh(init)
	for p := 0; p <= max(b.MaxPreemptions, 0); p++ {
		r := boundedRound(init, p, lim, &stop, &res.Stats)
		switch {
		case r.failure != nil:
			res.Verdict, res.Failure, res.Schedule, res.Preemptions = Violation, r.failure, r.schedule, p
			return res
		case r.cut != "":
			res.Verdict, res.Cut = Incomplete, r.cut
			return res
		case !r.bounded:
			res.Verdict, res.Complete, res.Preemptions = Verified, true, p
			return res
		}
	}
	res.Verdict, res.Complete = NoViolationFound, true
	n, noun := max(b.MaxPreemptions, 0), "preemptions"
	if n == 1 {
		noun = "preemption"
	}
	res.Cut = fmt.Sprintf("all schedules with at most %d %s", n, noun)
	return res
}

// CountPreemptions replays schedule from init (which it does not modify)
// and counts its preemptions: steps of a thread other than the one before,
// while that one could still run. A schedule that stops fitting (a thread
// not runnable at its step, a step that fails) is counted up to there.
func CountPreemptions(init System, schedule []ThreadID) int {
	s := init.Clone()
	n, last := 0, ThreadID(-1)
	var buf []ThreadID
	for _, t := range schedule {
		buf, _ = runnable(s, buf)
		if !slices.Contains(buf, t) {
			break
		}
		if preempts(buf, last, t) {
			n++
		}
		if s.Step(t) != nil {
			break
		}
		last = t
	}
	return n
}

// preempts reports whether running t after last, with runnable threads
// runnable, is a preemption.
func preempts(runnable []ThreadID, last, t ThreadID) bool {
	return last >= 0 && t != last && slices.Contains(runnable, last)
}

// roundResult is one round of Bounded.
type roundResult struct {
	failure  *Failure
	schedule []ThreadID
	cut      string
	// bounded: some pair's best expansion passed over a preemption.
	bounded bool
}

type boundedFrame struct {
	state System
	via   ThreadID
	left  int // preemptions left
	order []ThreadID
	next  int
}

// boundedPair is a visited (state, last thread) pair.
type boundedPair struct {
	left    int32 // the most preemptions left it was expanded with
	skipped bool  // that expansion passed over a preemption
}

// boundedRound explores every schedule with at most p preemptions.
func boundedRound(init System, p int, lim Limits, stop *stopper, st *Stats) roundResult {
	var (
		r       roundResult
		visited = map[string]boundedPair{}
		skipped int // pairs whose best expansion skipped a preemption
		key     []byte
		buf     []ThreadID
		maxD    = lim.maxDepth()
		states  pool
		stack   []boundedFrame
	)
	pairKey := func(s System, last ThreadID) []byte {
		key = append(key[:0], keyOf(s, key)...)
		return binary.LittleEndian.AppendUint32(key, uint32(last))
	}
	// visit records the pair of s, reached by via with left preemptions
	// left, and reports whether it needs expanding.
	visit := func(s System, via ThreadID, left int) bool {
		k := pairKey(s, via)
		old, seen := visited[string(k)]
		if seen && int(old.left) >= left {
			st.Matched++
			return false
		}
		if !seen {
			st.States++
		}
		if old.skipped {
			skipped--
		}
		visited[string(k)] = boundedPair{left: int32(left)}
		return true
	}
	// expand fills f's order with the threads it may run within its
	// budget, and records whether the budget stopped one.
	expand := func(f *boundedFrame, runnable []ThreadID) {
		f.order = f.order[:0]
		over := false
		buf = preferring(buf, runnable, f.via)
		for _, t := range buf {
			if preempts(runnable, f.via, t) && f.left == 0 {
				over = true
				continue
			}
			f.order = append(f.order, t)
		}
		if over {
			k := pairKey(f.state, f.via)
			visited[string(k)] = boundedPair{left: int32(f.left), skipped: true}
			skipped++
		}
	}
	// fail ends the round with the steps on the stack, then more, which
	// had preempts preemptions.
	fail := func(f *Failure, preempts int, more ...ThreadID) roundResult {
		st.execution(preempts)
		r.failure = f
		r.schedule = make([]ThreadID, 0, len(stack)+len(more))
		for _, fr := range stack {
			if fr.via >= 0 {
				r.schedule = append(r.schedule, fr.via)
			}
		}
		r.schedule = append(r.schedule, more...)
		return r
	}

	start := init.Clone()
	visit(start, -1, p)
	rbuf, done := runnable(start, nil)
	if len(rbuf) == 0 {
		if f := terminal(start, done); f != nil {
			return fail(f, 0)
		}
		st.execution(0)
		return r
	}
	stack = append(stack, boundedFrame{state: start, via: -1, left: p})
	expand(&stack[0], rbuf)
	for len(stack) > 0 {
		if stop.stopped() {
			r.cut = "stopped"
			return r
		}
		if lim.MaxExecutions > 0 && st.Executions >= lim.MaxExecutions {
			r.cut = fmt.Sprintf("max-executions %d reached", lim.MaxExecutions)
			return r
		}
		top := &stack[len(stack)-1]
		if top.next >= len(top.order) {
			states.put(top.state)
			top.state = nil
			stack = stack[:len(stack)-1]
			continue
		}
		t := top.order[top.next]
		top.next++
		rbuf, _ = runnable(top.state, rbuf)
		left := top.left
		if preempts(rbuf, top.via, t) {
			left--
		}
		next := states.copyOf(top.state)
		st.Steps++
		depth := len(stack)
		st.Depth = max(st.Depth, depth)
		if f := next.Step(t); f != nil {
			return fail(f, p-left, t)
		}
		if !visit(next, t, left) {
			st.execution(p - left)
			states.put(next)
			continue
		}
		rbuf, done = runnable(next, rbuf)
		if len(rbuf) == 0 {
			if f := terminal(next, done); f != nil {
				return fail(f, p-left, t)
			}
			st.execution(p - left)
			states.put(next)
			continue
		}
		if depth >= maxD {
			r.cut = fmt.Sprintf("an execution reached the step budget of %d", maxD)
			return r
		}
		if len(stack) < cap(stack) {
			stack = stack[:len(stack)+1]
		} else {
			stack = append(stack, boundedFrame{})
		}
		nf := &stack[len(stack)-1]
		nf.state, nf.via, nf.left, nf.next = next, t, left, 0
		expand(nf, rbuf)
	}
	r.bounded = skipped > 0
	return r
}
