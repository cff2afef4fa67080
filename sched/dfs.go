package sched

import "fmt"

// DFS is an exhaustive depth-first search with a visited set of states: each
// distinct state (by its exact key: AppendKey, or AppendCompactKey where the
// system is Compact) is expanded once. At every state it tries
// the thread that ran last first, so the first counterexample found tends to
// have few preemptions.
type DFS struct{}

// Name implements Strategy.
func (DFS) Name() string { return "dfs" }

// Exhaustive implements Strategy.
func (DFS) Exhaustive() bool { return true }

// dfsFrame is one state of a depth-first stack (the state itself is
// kept in the search's levels).
type dfsFrame struct {
	via   ThreadID // the thread whose step led here
	order []ThreadID
	next  int
	// preempts: the preemptions on the path to the state.
	preempts int
}

// Run implements Strategy: statefulDFS keyed by the exact state.
func (DFS) Run(init System, lim Limits) Result { return statefulDFS(init, lim, keyOf) }

// terminal checks a state with no runnable thread.
func terminal(s System, allDone bool) *Failure {
	if !allDone {
		return deadlock(s)
	}
	return s.Final()
}

// depthFirst is the search loop of statefulDFS and of each Parallel
// worker: a depth-first search from one root state that stores every state
// it reaches in set (keyed by key), tries the thread that ran last first,
// and stops at the first failure, when poll gives a reason to, or at the
// step budget. Its states, buffers and counts last from one search to
// the next.
type depthFirst struct {
	set      *setUser
	key      func(System, []byte) []byte
	maxDepth int
	stats    Stats
	states   levels // states.s[d] is the state of stack[d]
	buf      []ThreadID
	keyBuf   []byte
}

// dfsEnd is how a depthFirst search ended: cut, when set, says why it stopped
// early; failure, when set, came after path (the threads of the steps from
// the root; the last is the failing step, or the last before a failing end
// state), which had preempts preemptions in all.
type dfsEnd struct {
	cut      string
	failure  *Failure
	path     []ThreadID
	preempts int
}

// searchFrom searches from root, at least one of whose threads can run; base
// steps led to it, with preempts preemptions, the last of them by via (-1
// for none). poll is asked before every step and stops the search when
// it gives a reason.
func (d *depthFirst) searchFrom(root System, via ThreadID, base, preempts int, poll func() string) dfsEnd {
	d.buf, _ = runnable(root, d.buf)
	if len(d.states.s) == 0 {
		d.states.s = append(d.states.s, nil)
	}
	d.states.s[0] = root
	stack := []dfsFrame{{via: via, order: preferring(nil, d.buf, via), preempts: preempts}}
	failed := func(f *Failure, last ThreadID, pre int) dfsEnd {
		path := make([]ThreadID, 0, len(stack))
		for _, f := range stack[1:] {
			path = append(path, f.via)
		}
		return dfsEnd{failure: f, path: append(path, last), preempts: pre}
	}
	for len(stack) > 0 {
		if cut := poll(); cut != "" {
			return dfsEnd{cut: cut}
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
		next := d.states.child(len(stack) - 1)
		d.stats.Steps++
		depth := base + len(stack)
		d.stats.Depth = max(d.stats.Depth, depth)
		if f := next.Step(t); f != nil {
			return failed(f, t, pre)
		}
		d.keyBuf = d.key(next, d.keyBuf)
		if !d.set.add(d.keyBuf) {
			d.stats.Matched++
			d.stats.execution(pre)
			continue
		}
		d.stats.States++
		var allDone bool
		if d.buf, allDone = runnable(next, d.buf); len(d.buf) == 0 {
			if f := terminal(next, allDone); f != nil {
				return failed(f, t, pre)
			}
			d.stats.execution(pre)
			continue
		}
		if depth >= d.maxDepth {
			return dfsEnd{cut: fmt.Sprintf("an execution reached the step budget of %d", d.maxDepth)}
		}
		// Reuse the popped frame's order slice, if any.
		if len(stack) < cap(stack) {
			stack = stack[:len(stack)+1]
		} else {
			stack = append(stack, dfsFrame{})
		}
		nf := &stack[len(stack)-1]
		nf.via, nf.next, nf.preempts = t, 0, pre
		nf.order = preferring(nf.order[:0], d.buf, t)
	}
	return dfsEnd{}
}
