package sched

import "fmt"

// Random runs Runs independent walks, each choosing among the runnable
// threads at every step with Chooser. It never proves anything: finding
// nothing is NoViolationFound.
type Random struct {
	Runs    int64
	Chooser Chooser
}

// Name implements Strategy.
func (Random) Name() string { return "random" }

// Exhaustive implements Strategy.
func (Random) Exhaustive() bool { return false }

// Run implements Strategy.
func (r Random) Run(init System, lim Limits) Result {
	return runWalks(init, lim, r.Runs, func() Chooser { return r.Chooser })
}

// runWalks runs up to runs walks from init, each with the chooser next
// returns for it, and stops at the first failure or cut.
func runWalks(init System, lim Limits, runs int64, next func() Chooser) Result {
	var res Result
	var last []ThreadID
	stop := newStopper(lim, &res.Stats)
	for run := int64(0); run < runs; run++ {
		if lim.MaxExecutions > 0 && res.Stats.Executions >= lim.MaxExecutions {
			res.Verdict, res.Cut = Incomplete, fmt.Sprintf("max-executions %d reached", lim.MaxExecutions)
			return res
		}
		w := walk(init.Clone(), next(), lim.maxDepth(), &stop, nil)
		res.Stats.execution(w.preemptions)
		res.Stats.Steps += int64(len(w.schedule))
		res.Stats.Depth = max(res.Stats.Depth, len(w.schedule))
		switch {
		case w.failure != nil:
			res.Verdict, res.Failure, res.Schedule = Violation, w.failure, w.schedule
			return res
		case w.cut != "":
			res.Verdict, res.Cut = Incomplete, w.cut
			return res
		}
		last = w.schedule
	}
	res.Verdict, res.Complete = NoViolationFound, true
	if runs == 1 {
		res.Walk = last
	}
	return res
}

// walkResult is one execution.
type walkResult struct {
	schedule    []ThreadID
	failure     *Failure
	cut         string
	preemptions int // in schedule, as CountPreemptions counts them
}

// walk runs s to the end, asking c at every step. s is modified.
func walk(s System, c Chooser, maxDepth int, stop *stopper, replay *Replaying) walkResult {
	var (
		w    walkResult
		buf  []ThreadID
		last = ThreadID(-1)
	)
	for {
		if stop.stopped() {
			w.cut = "stopped"
			return w
		}
		var done bool
		buf, done = runnable(s, buf)
		if len(buf) == 0 {
			w.failure = terminal(s, done)
			return w
		}
		if len(w.schedule) >= maxDepth {
			w.cut = fmt.Sprintf("an execution reached the step budget of %d", maxDepth)
			return w
		}
		t := c.Choose(buf)
		if replay != nil && replay.Err != nil {
			return w
		}
		w.schedule = append(w.schedule, t)
		if preempts(buf, last, t) {
			w.preemptions++
		}
		if f := s.Step(t); f != nil {
			w.failure = f
			return w
		}
		last = t
	}
}

// Replay runs one recorded schedule from init (which it does not modify),
// checked as any search would check it. It returns an error when the
// schedule does not fit the system: a thread not runnable at its step, a
// schedule that ends while threads can still move, or one that goes on
// after its execution failed or ended.
func Replay(init System, schedule []ThreadID, lim Limits) (Result, error) {
	var res Result
	rc := NewReplaying(schedule)
	stop := newStopper(lim, &res.Stats)
	w := walk(init.Clone(), rc, max(lim.maxDepth(), len(schedule)+1), &stop, rc)
	res.Stats.execution(w.preemptions)
	res.Stats.Steps = int64(len(w.schedule))
	res.Stats.Depth = len(w.schedule)
	switch {
	case rc.Err != nil:
		return res, rc.Err
	case w.cut != "":
		res.Verdict, res.Cut = Incomplete, w.cut
		return res, nil
	case rc.Left() > 0:
		return res, fmt.Errorf("the execution ended after step %d but the schedule has %d more", len(w.schedule), rc.Left())
	case w.failure != nil:
		res.Verdict, res.Failure, res.Schedule = Violation, w.failure, w.schedule
		return res, nil
	}
	res.Verdict, res.Complete, res.Walk = NoViolationFound, true, w.schedule
	return res, nil
}
