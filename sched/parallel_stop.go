package sched

import (
	"cmp"
	"fmt"
)

// How Parallel's run ends: the first failure stops every worker, the
// executions are counted against Limits.MaxExecutions across workers, and
// the run's Result is put together.

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
