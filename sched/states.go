package sched

import "fmt"

// States is an exhaustive depth-first search with a visited set keyed by
// canonical keys when the system is Canonical (and by AppendKey otherwise,
// which makes it DFS): a state is expanded once per orbit, so n
// interchangeable threads cost up to n! times fewer states than DFS stores
// (and fewer still if the keys also leave out what no step reads: merged
// with 5 threads, 2.87M states under DFS, 11.6k here).
//
// The search moves through real states: only the keys are canonical, so
// a counterexample's schedule is one that really runs, and it is the one
// DFS finds. (Both take the first failing path of the same depth-first
// order over executions: a state either search skips was reached before,
// in itself or as a renaming, and nothing that fails is reachable from it.)
type States struct{}

// Name implements Strategy.
func (States) Name() string { return "states" }

// Exhaustive implements Strategy.
func (States) Exhaustive() bool { return true }

// Run implements Strategy.
func (States) Run(init System, lim Limits) Result {
	key := keyOf
	if _, ok := init.(Canonical); ok {
		key = canonicalKeyOf
	}
	return statefulDFS(init, lim, key)
}

// canonicalKeyOf is a Canonical system's canonical key, appended to buf.
func canonicalKeyOf(s System, buf []byte) []byte {
	return s.(Canonical).AppendCanonicalKey(buf[:0])
}

// statefulDFS is DFS with the state key of keyOf. At every state it tries
// the thread that ran last first, so the first counterexample found tends
// to have few preemptions.
func statefulDFS(init System, lim Limits, keyOf func(System, []byte) []byte) Result {
	var (
		res     Result
		visited = newVisitedSet(1).join()
		key     []byte
		buf     []ThreadID
		stop    = newStopper(lim, &res.Stats)
		maxD    = lim.maxDepth()
		states  levels
	)
	key = keyOf(init, key)
	visited.add(key)
	res.Stats.States = 1

	fail := func(stack []dfsFrame, f *Failure) Result {
		res.Verdict, res.Complete = Violation, false
		res.Failure = f
		res.Schedule = make([]ThreadID, 0, len(stack))
		for _, f := range stack[1:] {
			res.Schedule = append(res.Schedule, f.via)
		}
		res.Stats.execution(stack[len(stack)-1].preempts) // the failing one
		res.Stats.MemoryBytes = visited.set.bytes()
		return res
	}
	done := func(v Verdict, cut string) Result {
		res.Verdict, res.Complete, res.Cut = v, v == Verified, cut
		res.Stats.MemoryBytes = visited.set.bytes()
		return res
	}

	start := init.Clone()
	states.s = append(states.s, start)
	buf, allDone := runnable(start, buf)
	if len(buf) == 0 {
		if f := terminal(start, allDone); f != nil {
			return fail([]dfsFrame{{}}, f)
		}
		res.Stats.execution(0)
		return done(Verified, "")
	}
	// stack[d] is the frame of the state at depth d, states.s[d].
	stack := []dfsFrame{{via: -1, order: preferring(nil, buf, -1)}}
	for len(stack) > 0 {
		if stop.stopped() {
			return done(Incomplete, "stopped")
		}
		if lim.MaxExecutions > 0 && res.Stats.Executions >= lim.MaxExecutions {
			return done(Incomplete, fmt.Sprintf("max-executions %d reached", lim.MaxExecutions))
		}
		top := &stack[len(stack)-1]
		if top.next >= len(top.order) {
			stack = stack[:len(stack)-1]
			continue
		}
		t := top.order[top.next]
		top.next++
		// preferring put the last thread first if it can run.
		pre := top.preempts
		if t != top.via && top.order[0] == top.via {
			pre++
		}
		next := states.child(len(stack) - 1)
		res.Stats.Steps++
		f := next.Step(t)
		depth := len(stack)
		res.Stats.Depth = max(res.Stats.Depth, depth)
		if f != nil {
			return fail(append(stack, dfsFrame{via: t, preempts: pre}), f)
		}
		key = keyOf(next, key)
		if !visited.add(key) {
			res.Stats.Matched++
			res.Stats.execution(pre)
			continue
		}
		res.Stats.States++
		buf, allDone = runnable(next, buf)
		if len(buf) == 0 {
			if f := terminal(next, allDone); f != nil {
				return fail(append(stack, dfsFrame{via: t, preempts: pre}), f)
			}
			res.Stats.execution(pre)
			continue
		}
		if depth >= maxD {
			return done(Incomplete, fmt.Sprintf("an execution reached the step budget of %d", maxD))
		}
		// Reuse the popped frame's order slice, if any.
		if len(stack) < cap(stack) {
			stack = stack[:len(stack)+1]
		} else {
			stack = append(stack, dfsFrame{})
		}
		nf := &stack[len(stack)-1]
		nf.via, nf.next, nf.preempts = t, 0, pre
		nf.order = preferring(nf.order[:0], buf, t)
	}
	return done(Verified, "")
}
