package check

import (
	"fmt"

	"swapcheck/sched"
)

// CanonicalBudget is how many steps the search on one worker may take
// that replaces the counterexample of a search on several (see
// canonical): a count, not a time, so that whether it is replaced does
// not depend on the machine. The scenarios whose counterexamples varied
// from run to run (refcount-del with 10 threads, refcount-unregistered
// with 8 free-threaded) need a few hundred steps; a sequential search
// runs a million steps in about a second.
const CanonicalBudget = 1 << 22

// canonical makes a violation that several workers found (found, by
// strategy parallel with more than one worker) the one the same search
// on one worker finds (sequential): which worker reached a failure first
// depends on timing, so the counterexample, and the replay command
// printed with it, varied from run to run; the sequential search's is
// the same on every run, and the same as -workers 1 reports. The parallel
// search keeps its speed where it matters most, to prove a correct
// protocol; a bug is found by both, and the sequential search costs at
// most the budget more.
//
// It returns found with the sequential counterexample and its steps
// added, and a line for r.Plan that says what it did; it records in r
// the steps of the search whose counterexample stands (what a -workers 1
// run counts, for the shortening's budget). When the sequential search
// finds nothing within its budget (or is stopped), found's
// counterexample stands, and the line says that it may differ between
// runs.
func (r *Report) canonical(found sched.Result, sequential sched.Strategy, sys *System, lim sched.Limits) (sched.Result, string) {
	budget, _ := budgeted(lim, debugOr(debug.canonicalBudget, CanonicalBudget))
	budget.Progress = nil
	seq := sequential.Run(sys, budget)
	found.Stats.Steps += seq.Stats.Steps
	if seq.Verdict != sched.Violation {
		return found, fmt.Sprintf("%s on one worker: no counterexample within %d steps, so the one reported depends on which worker found it first, and may differ between runs", sequential.Name(), seq.Stats.Steps)
	}
	found.Failure, found.Schedule = seq.Failure, seq.Schedule
	r.searchSteps = seq.Stats.Steps
	return found, fmt.Sprintf("%s on one worker: the counterexample it finds first, in %d steps, reported on every run", sequential.Name(), seq.Stats.Steps)
}

// byWorkers reports whether cfg's strategy runs on several workers, whose
// counterexample depends on timing, and gives the strategy a run with
// one worker uses. (auto pairs its searches itself: Report.auto.)
func byWorkers(cfg Config) (sched.Strategy, bool) {
	if cfg.Workers <= 1 || cfg.Shards > 1 {
		return nil, false
	}
	switch cfg.Strategy {
	case StrategyStates, StrategyDFS, StrategyPOR:
		one := cfg
		one.Workers = 1
		s, err := strategy(one)
		return s, err == nil
	}
	return nil, false
}
