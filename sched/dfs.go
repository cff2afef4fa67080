package sched

import "fmt"

// DFS is an exhaustive depth-first search with a visited set of states: each
// distinct state (by AppendKey) is expanded once. At every state it tries
// the thread that ran last first, so the first counterexample found tends to
// have few preemptions.
type DFS struct{}

// Name implements Strategy.
func (DFS) Name() string { return "dfs" }

// Exhaustive implements Strategy.
func (DFS) Exhaustive() bool { return true }

type dfsFrame struct {
	state System
	via   ThreadID // the thread whose step led here
	order []ThreadID
	next  int
}

// Run implements Strategy.
func (DFS) Run(init System, lim Limits) Result {
	var (
		res     Result
		visited = newVisitedSet()
		key     []byte
		buf     []ThreadID
		stop    = newStopper(lim, &res.Stats)
		maxD    = lim.maxDepth()
		states  pool
	)
	key = init.AppendKey(nil)
	visited.add(key)
	res.Stats.States = 1

	schedule := func(stack []dfsFrame) []ThreadID {
		s := make([]ThreadID, 0, len(stack))
		for _, f := range stack[1:] {
			s = append(s, f.via)
		}
		return s
	}
	fail := func(stack []dfsFrame, f *Failure) Result {
		res.Verdict, res.Complete = Violation, false
		res.Failure, res.Schedule = f, schedule(stack)
		res.Stats.Executions++ // the failing one
		return res
	}

	start := init.Clone()
	buf, done := runnable(start, buf)
	if len(buf) == 0 {
		res.Stats.Executions = 1
		if f := terminal(start, done); f != nil {
			return fail([]dfsFrame{{state: start}}, f)
		}
		res.Verdict, res.Complete = Verified, true
		return res
	}
	stack := []dfsFrame{{state: start, via: -1, order: preferring(nil, buf, -1)}}
	for len(stack) > 0 {
		if stop.stopped() {
			res.Verdict, res.Cut = Incomplete, "stopped"
			return res
		}
		if lim.MaxExecutions > 0 && res.Stats.Executions >= lim.MaxExecutions {
			res.Verdict, res.Cut = Incomplete, fmt.Sprintf("max-executions %d reached", lim.MaxExecutions)
			return res
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
		next := states.copyOf(top.state)
		res.Stats.Steps++
		f := next.Step(t)
		depth := len(stack)
		if depth > res.Stats.Depth {
			res.Stats.Depth = depth
		}
		if f != nil {
			return fail(append(stack, dfsFrame{via: t}), f)
		}
		key = keyOf(next, key)
		if !visited.add(key) {
			res.Stats.Matched++
			res.Stats.Executions++
			states.put(next)
			continue
		}
		res.Stats.States++
		buf, done = runnable(next, buf)
		if len(buf) == 0 {
			res.Stats.Executions++
			if f := terminal(next, done); f != nil {
				return fail(append(stack, dfsFrame{via: t}), f)
			}
			states.put(next)
			continue
		}
		if depth >= maxD {
			res.Verdict, res.Cut = Incomplete, fmt.Sprintf("an execution reached the step budget of %d", maxD)
			return res
		}
		// Reuse the popped frame's order slice, if any.
		if len(stack) < cap(stack) {
			stack = stack[:len(stack)+1]
		} else {
			stack = append(stack, dfsFrame{})
		}
		nf := &stack[len(stack)-1]
		nf.state, nf.via, nf.next = next, t, 0
		nf.order = preferring(nf.order[:0], buf, t)
	}
	res.Verdict, res.Complete = Verified, true
	return res
}

// terminal checks a state with no runnable thread.
func terminal(s System, allDone bool) *Failure {
	if !allDone {
		return deadlock(s)
	}
	return s.Final()
}
