package sched

import (
	"fmt"
	"slices"
)

// BFS is an exhaustive breadth-first search with a visited set of states.
// Its first counterexample has the fewest steps of any, which makes it the
// search that shortens a counterexample found some other way.
//
// An execution's preemptions (Stats.PreemptionsMin and so on) are counted
// along the path that first reached each state: a queued state carries the
// count of that path, and an execution adds its last step's.
type BFS struct{}

// Name implements Strategy.
func (BFS) Name() string { return "bfs" }

// Exhaustive implements Strategy.
func (BFS) Exhaustive() bool { return true }

type bfsNode struct {
	parent   int32 // index in nodes, -1 for the initial state
	via      ThreadID
	depth    int32
	preempts int32 // on the path from the initial state
}

// Run implements Strategy.
func (BFS) Run(init System, lim Limits) Result {
	var (
		res     Result
		visited = newSearchSet(1, lim).join()
		key     []byte
		buf     []ThreadID
		nbuf    []ThreadID // the runnable threads of a state just reached
		stop    = newStopper(lim, &res.Stats)
		maxD    = lim.maxDepth()
		nodes   = []bfsNode{{parent: -1, via: -1}}
		states  pool
	)
	defer visited.set.free()
	stop.weigh(init)
	type item struct {
		state System
		node  int32
	}
	schedule := func(n int32, last ThreadID) []ThreadID {
		var rev []ThreadID
		if last >= 0 {
			rev = append(rev, last)
		}
		for ; nodes[n].parent >= 0; n = nodes[n].parent {
			rev = append(rev, nodes[n].via)
		}
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		return rev
	}
	fail := func(n int32, last ThreadID, preempts int, f *Failure) Result {
		res.Verdict, res.Failure, res.Schedule = Violation, f, schedule(n, last)
		res.Stats.execution(preempts) // the failing one
		return res
	}
	key = keyOf(init, nil)
	visited.add(key)
	res.Stats.States = 1
	// A state with no runnable thread is checked when it is first reached,
	// so a final-state failure after d steps is found before any failure
	// after d+1: the first counterexample is a shortest one.
	buf, done := runnable(init, buf)
	if len(buf) == 0 {
		if f := terminal(init, done); f != nil {
			return fail(0, -1, 0, f)
		}
		res.Stats.execution(0)
		res.Verdict, res.Complete = Verified, true
		return res
	}
	queue := []item{{state: init.Clone(), node: 0}}
	for head := 0; head < len(queue); head++ {
		it := queue[head]
		queue[head] = item{}
		buf, _ = runnable(it.state, buf)
		via, preempts := nodes[it.node].via, int(nodes[it.node].preempts)
		lastRunnable := via >= 0 && slices.Contains(buf, via)
		depth := int(nodes[it.node].depth) + 1
		if depth > maxD {
			res.Verdict, res.Cut = Incomplete, fmt.Sprintf("an execution reached the step budget of %d", maxD)
			return res
		}
		for _, t := range buf {
			if stop.stopped() {
				res.Verdict, res.Cut = Incomplete, "stopped"
				return res
			}
			pre := preempts
			if lastRunnable && t != via {
				pre++
			}
			next := states.copyOf(it.state)
			res.Stats.Steps++
			res.Stats.Depth = max(res.Stats.Depth, depth)
			if f := next.Step(t); f != nil {
				return fail(it.node, t, pre, f)
			}
			key = keyOf(next, key)
			if !visited.add(key) {
				res.Stats.Matched++
				res.Stats.execution(pre)
				states.put(next)
				continue
			}
			res.Stats.States++
			if nbuf, done = runnable(next, nbuf); len(nbuf) == 0 {
				if f := terminal(next, done); f != nil {
					return fail(it.node, t, pre, f)
				}
				res.Stats.execution(pre)
				states.put(next)
				continue
			}
			nodes = append(nodes, bfsNode{parent: it.node, via: t, depth: int32(depth), preempts: int32(pre)})
			queue = append(queue, item{state: next, node: int32(len(nodes) - 1)})
		}
		states.put(it.state)
		if lim.MaxExecutions > 0 && res.Stats.Executions >= lim.MaxExecutions {
			res.Verdict, res.Cut = Incomplete, fmt.Sprintf("max-executions %d reached", lim.MaxExecutions)
			return res
		}
	}
	res.Verdict, res.Complete = Verified, true
	return res
}
