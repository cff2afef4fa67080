package sched

import (
	"cmp"
	"fmt"
	"slices"
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

// Canonical is implemented by systems with interchangeable threads: the
// canonical key is equal for states that differ by a permutation of such
// threads (and only for those).
type Canonical interface {
	AppendCanonicalKey(b []byte) []byte
}

// CanonicalOrderer is implemented by Canonical systems that can list
// their threads in the order their canonical key takes them: for states s
// and π(s), π a permutation the key ignores, the orders are each other's
// image under π, but for threads whose swap leaves the state as it is.
// POR takes threads in this order, so that its persistent sets are the
// same up to symmetry at every state of an orbit.
type CanonicalOrderer interface {
	AppendCanonicalOrder(buf []ThreadID) []ThreadID
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

type root struct {
	state    System
	path     []ThreadID
	preempts int // in path
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

// prefix expands states breadth-first until there are at least want of
// them to share out. It reports done when the search ended there. It
// polls Limits.Stop as the workers do: the prefix of 64 interchangeable
// threads makes thousands of states, which in a large model take seconds.
func (r *parallelRun) prefix(u *setUser, init System, want int) ([]root, bool) {
	var buf, key []byte
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
				key = r.key(s, buf)
				if !u.add(key) {
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

// fail records a violation after path, which had preempts preemptions.
func (r *parallelRun) fail(f *Failure, path []ThreadID, preempts int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failure == nil {
		r.failure, r.schedule = f, path
		r.total.execution(preempts) // the failing one
	}
	r.stop.Store(true)
}

func (r *parallelRun) result(res *Result) Result {
	res.Stats = r.total
	if r.workers > 1 {
		res.Stats.Depth, res.Stats.DepthUnmeasured = 0, true
	}
	res.Stats.PreemptionsByTiming = r.workers > 1
	res.Stats.MemoryBytes = r.visited.bytes()
	if m := r.lim.MaxExecutions; m > 0 && r.total.Executions > m && r.cut == "" {
		r.cut = maxExecutionsCut(m) // it ran more than it was allowed
	}
	switch {
	case r.failure != nil:
		res.Verdict, res.Failure, res.Schedule = Violation, r.failure, r.schedule
	case r.cut != "":
		res.Verdict, res.Cut = Incomplete, r.cut
	default:
		res.Verdict, res.Complete = Verified, true
	}
	return *res
}

// worker is one goroutine's depth-first search.
type worker struct {
	depthFirst // its stats are not yet added to run.total
	run        *parallelRun
}

// flush adds the worker's counts to the total, polls Limits.Stop and
// reports Limits.Progress; the worker's search calls it every PollEvery
// steps.
func (w *worker) flush() {
	r := w.run
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total.Steps += w.stats.Steps
	r.total.States += w.stats.States
	r.total.Matched += w.stats.Matched
	r.total.Depth = max(r.total.Depth, w.stats.Depth)
	r.total.AddExecutions(w.stats)
	if w.sharedExecutions != nil {
		w.sharedExecutions.Add(w.stats.Executions - w.synced)
		w.synced = 0
	}
	w.stats = Stats{}
	if r.lim.Progress != nil {
		r.lim.Progress(r.total)
	}
	if r.lim.Stop != nil && r.lim.Stop() {
		if r.cut == "" && r.failure == nil {
			r.cut = "stopped"
		}
		r.stop.Store(true)
	}
}

// cutAtMaxExecutions stops the run once its workers have counted
// Limits.MaxExecutions executions, as a worker polls in the middle of its
// search (so it has steps left, and the run more executions to count). A
// worker's own count reaches the run's only at its polls, so a run may
// count more before it stops; result makes any run that counted more
// incomplete, even one that had none left to run when it stopped.
func (r *parallelRun) cutAtMaxExecutions() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.lim.MaxExecutions; m > 0 && r.total.Executions >= m && r.failure == nil {
		r.cut = cmp.Or(r.cut, maxExecutionsCut(m))
		r.stop.Store(true)
	}
}

// maxExecutionsCut is the Cut of a search that reached Limits.MaxExecutions m.
func maxExecutionsCut(m int64) string { return fmt.Sprintf("max-executions %d reached", m) }

func (w *worker) search(rt root) {
	r := w.run
	last := ThreadID(-1)
	if n := len(rt.path); n > 0 {
		last = rt.path[n-1]
	}
	const runStopped = "the run stopped" // its cut, if any, is set already
	end := w.searchFrom(rt.state, last, len(rt.path), rt.preempts, func() string {
		w.flush()
		r.cutAtMaxExecutions()
		if r.stop.Load() {
			return runStopped
		}
		return ""
	})
	switch {
	case end.failure != nil:
		r.fail(end.failure, append(slices.Clone(rt.path), end.path...), end.preempts)
	case end.cut != "" && end.cut != runStopped: // the step budget
		r.mu.Lock()
		if r.cut == "" {
			r.cut = end.cut
		}
		r.mu.Unlock()
		r.stop.Store(true)
	}
}
