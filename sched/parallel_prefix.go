package sched

import "fmt"

// Parallel's work distribution: a breadth-first prefix of the search
// makes the root states the workers take, one queue for all.

type root struct {
	state    System
	path     []ThreadID
	preempts int // in path
}

// prefix expands states breadth-first until there are at least want of
// them to share out. It reports done when the search ended there. It
// polls Limits.Stop as the workers do: the prefix of 64 interchangeable
// threads makes thousands of states, which in a large model take seconds.
func (r *parallelRun) prefix(u *setUser, init System, want int) ([]root, bool) {
	var buf []byte
	var threads, kept []ThreadID
	var red *porReducer
	if r.reducer != nil {
		red = r.reducer()
	}
	stop := newStopper(r.lim, &r.total) // the workers have not started
	stop.weigh(init)
	level := []root{{state: init.Clone()}}
	for len(level) > 0 && len(level) < want {
		var next []root
		for _, it := range level {
			threads, _ = runnable(it.state, threads)
			last := ThreadID(-1)
			if n := len(it.path); n > 0 {
				last = it.path[n-1]
			}
			if len(it.path)+1 > r.maxDepth {
				r.cut = fmt.Sprintf("an execution reached the step budget of %d", r.maxDepth)
				return nil, true
			}
			kept = append(kept[:0], threads...)
			if red != nil {
				kept = red.keep(it.state, kept)
			}
			for _, t := range kept {
				if stop.stopped() {
					r.cut = "stopped"
					return nil, true
				}
				if m := r.lim.MaxExecutions; m > 0 && r.total.Executions >= m {
					r.cut = maxExecutionsCut(m)
					return nil, true
				}
				s := it.state.Clone()
				r.total.Steps++
				path := append(append([]ThreadID(nil), it.path...), t)
				r.total.Depth = max(r.total.Depth, len(path))
				pre := it.preempts
				if preempts(threads, last, t) {
					pre++
				}
				if f := s.Step(t); f != nil {
					r.fail(f, path, pre)
					return nil, true
				}
				buf = r.key(s, buf) // the set copies what it keeps
				if !u.add(buf) {
					r.total.Matched++
					r.total.execution(pre)
					continue
				}
				r.total.States++
				if ts, allDone := runnable(s, nil); len(ts) == 0 {
					if f := terminal(s, allDone); f != nil {
						r.fail(f, path, pre)
						return nil, true
					}
					r.total.execution(pre)
					continue
				}
				next = append(next, root{state: s, path: path, preempts: pre})
			}
		}
		level = next
	}
	return level, len(level) == 0
}
