package sched

import (
	"sync"
	"sync/atomic"
)

// Parallel is an exhaustive stateful search on several goroutines: a short
// breadth-first prefix makes a queue of root states, and each worker runs a
// depth-first search from the roots it takes, all sharing one visited set
// (lock-free, see visitedSet). With Symmetry it keys states by
// their canonical key (see Canonical) where the system offers one.
//
// Every reachable state is stored and expanded exactly once, by whichever
// worker gets there first, so a finished search's States, Steps, Matched and
// Executions do not depend on the number of workers or on timing. A
// violation stops all workers; which one is found first can depend on
// timing (check.Explore then reports the one a search on one worker finds).
// On several workers Stats.Depth is not measured (Stats.DepthUnmeasured):
// the longest path depends on the interleaving.
// The preemption statistics are counted as DFS counts them, along the path
// that first reached each state; with more than one worker, which path
// that is can depend on timing, and so can PreemptionsMax and the mean
// (Stats.PreemptionsByTiming says so).
type Parallel struct {
	Workers  int
	Symmetry bool
	// Shard and Shards (Shards > 1) split the search for independent
	// processes: all compute the same breadth-first prefix, and shard i
	// searches the roots whose index is i modulo Shards. The shards' union
	// covers every state; states reachable from roots of several shards
	// are searched by each, so their counts overlap.
	Shard, Shards int
}

// Name implements Strategy.
func (p Parallel) Name() string {
	if p.Symmetry {
		return "states"
	}
	return "dfs"
}

// Exhaustive implements Strategy.
func (Parallel) Exhaustive() bool { return true }

// parallelRun is the shared state of one Run.
type parallelRun struct {
	lim      Limits
	workers  int
	maxDepth int
	symmetry bool
	visited  *visitedSet
	// reducer, when set, makes each goroutine's persistent-set reducer
	reducer func() *porReducer

	stop atomic.Bool // a worker found a violation, or Limits.Stop said so
	// executions counts the run's executions as they end, for
	// Limits.MaxExecutions: every worker adds its own at once (not at its
	// polls, as it adds the other counts), so the run stops within one
	// execution per worker of the limit
	executions atomic.Int64

	mu       sync.Mutex // guards the fields below, and calls of lim.Stop/Progress
	total    Stats
	failure  *Failure
	schedule []ThreadID
	cut      string
}

func (r *parallelRun) key(s System, buf []byte) []byte {
	if r.symmetry {
		if c, ok := s.(Canonical); ok {
			return c.AppendCanonicalKey(buf[:0])
		}
	}
	return keyOf(s, buf)
}

// Run implements Strategy.
func (p Parallel) Run(init System, lim Limits) Result { return p.run(init, lim, nil) }

// run is Run, each state's runnable threads cut down by a reducer that
// reducer makes for each goroutine, when it is not nil (POR).
func (p Parallel) run(init System, lim Limits, reducer func() *porReducer) Result {
	workers := max(p.Workers, 1)
	r := &parallelRun{lim: lim, maxDepth: lim.maxDepth(), symmetry: p.Symmetry, visited: newSearchSet(workers, lim), workers: workers, reducer: reducer}
	var res Result
	defer r.visited.free() // after result has read its size and the workers are done

	first := r.visited.join()
	first.add(r.key(init, nil))
	r.total.States = 1
	if ts, allDone := runnable(init, nil); len(ts) == 0 {
		// No thread can run from the start: one execution, of no steps,
		// which the prefix would not count or check.
		first.leave()
		if f := terminal(init.Clone(), allDone); f != nil {
			r.fail(f, nil, 0)
		} else {
			r.total.execution(0)
		}
		return r.result(&res)
	}
	// The prefix runs on one goroutine, and it clones every state: 16
	// roots per worker balance the work well enough (a worker that runs
	// out takes the next root), where 64 made the prefix a seventh of a
	// 4-thread search and two workers only 1.5 times as fast as one.
	roots, done := r.prefix(first, init, max(16*workers, 16*p.Shards))
	first.leave()
	if done {
		return r.result(&res)
	}
	r.executions.Store(r.total.Executions)
	if p.Shards > 1 {
		var mine []root
		for i, rt := range roots {
			if i%p.Shards == p.Shard {
				mine = append(mine, rt)
			}
		}
		roots = mine
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := worker{run: r, depthFirst: depthFirst{set: r.visited.join(), key: r.key, maxDepth: r.maxDepth,
				maxExecutions: r.lim.MaxExecutions, sharedExecutions: &r.executions}}
			if r.reducer != nil {
				w.reduce = r.reducer()
			}
			_, canonical := init.(Canonical)
			w.useWords(init, !(r.symmetry && canonical))
			defer w.set.leave()
			for !r.stop.Load() {
				i := next.Add(1) - 1
				if i >= int64(len(roots)) {
					break
				}
				w.search(roots[i])
				roots[i] = root{}
			}
			w.flush()
		}()
	}
	wg.Wait()
	return r.result(&res)
}
