package source

import (
	"fmt"

	"swapcheck/sched"
)

// Search is a search of p's states (sched.States), of transactions when
// the reduction covers p's world (Program.Reduced) and the limits set no
// depth (a depth counts p's own steps), else of p's own steps. A search
// of transactions that meets a break (transactions.go) stops at its next
// poll and is run again with the broken parts' accesses taken as
// non-movers, until one meets none; a violation found on the way is an
// execution of the file, and is taken at once. The result's Schedule is
// one of p's own steps (Expand), so a trace, a replay or shrinking takes
// it with p.Unreduced() (p itself when the caller gave an unreduced p,
// as explore does; a reduced p is searched as it is, as tests give it);
// its Stats are the last search's. wrap, when set, wraps each search's
// world (-want's aim). how says which search ran: "transactions: ..."
// with how many searches it took, or "every instruction a step: " and
// why.
func Search(p *Program, lim sched.Limits, wrap func(sched.System) sched.System) (res sched.Result, how string) {
	if wrap == nil {
		wrap = func(s sched.System) sched.System { return s }
	}
	if why := p.unreducedBy(lim); why != "" {
		return sched.States{}.Run(wrap(New(p.Unreduced())), lim), "every instruction a step: " + why
	}
	r := p
	if p.tx == nil {
		r, _ = p.Reduced()
	}
	asked := func() bool { return lim.Stop != nil && lim.Stop() }
	for reruns := 0; ; reruns++ {
		// a search that met a break stops at its next poll: its verdict
		// will not be taken, unless it finds a violation first
		l := lim
		l.Stop = func() bool { return r.tx.anyBreak.Load() || asked() }
		res = r.strategy().Run(wrap(New(r)), l)
		next, broke := r.rerun()
		if broke && res.Verdict != sched.Violation && !asked() {
			r = next
			continue
		}
		how = "transactions: each thread's lock-protected instructions joined (docs/source.md)"
		if r.porOn() {
			how += "; persistent sets of them"
		}
		if reruns > 0 {
			how += fmt.Sprintf("; searched %d times, each with fewer movers, until no lockset broke", reruns+1)
		}
		if broke {
			how += "; a lockset broke, so the joins are not trusted"
			if res.Verdict == sched.Verified {
				// asked to stop before the search with fewer movers:
				// what this one covered proves nothing
				res.Verdict, res.Complete, res.Cut = sched.Incomplete, false, "stopped"
			}
		}
		if res.Verdict == sched.Violation {
			res = r.fewerPreemptions(res, asked)
			s, err := r.Expand(res.Schedule)
			if err != nil {
				panic("source: " + err.Error())
			}
			res.Schedule = s
		}
		return res, how
	}
}

// unreducedBy says why Search searches p under lim with every
// instruction a step, "" where it searches transactions.
func (p *Program) unreducedBy(lim sched.Limits) string {
	if p.tx == nil {
		if why := p.notReducible(); why != "" {
			return why
		}
	}
	if lim.MaxDepth > 0 {
		return "-max-depth counts the file's own steps"
	}
	return ""
}

// StrategyName names the strategy Search takes for p under lim, as
// check's strategies are named: "por" where it takes persistent sets of
// transactions, else "states".
func StrategyName(p *Program, lim sched.Limits) string {
	if p.unreducedBy(lim) == "" && p.porWorld() {
		return sched.POR{}.Name()
	}
	return sched.States{}.Name()
}

// Expand is the schedule of p's own steps that a schedule of its reduced
// world's transactions runs (each transaction's thread once for every
// unreduced step it joined). p is the reduced program.
func (p *Program) Expand(sch []sched.ThreadID) ([]sched.ThreadID, error) {
	if p.tx == nil {
		return sch, nil
	}
	w := New(p)
	var out []sched.ThreadID
	for i, t := range sch {
		if st := w.Status(t); st != sched.Runnable {
			return nil, fmt.Errorf("step %d of the schedule: %s is %s", i, p.ThreadName(int(t)), st)
		}
		f := w.Step(t)
		for range w.bounds {
			out = append(out, t)
		}
		if f != nil && i != len(sch)-1 {
			return nil, fmt.Errorf("step %d of the schedule failed before its end: %s", i, f.Message)
		}
	}
	return out, nil
}

// strategy is the search a reduced p's world takes: sched.POR where its
// threads have futures (futures.go), else sched.States.
func (p *Program) strategy() sched.Strategy {
	if p.porOn() {
		return sched.POR{}
	}
	return sched.States{}
}

// fewerBudget bounds the executions fewerPreemptions spends.
const fewerBudget = 20_000

// fewerPreemptions is res, a violation of p's reduced world, or one of
// the same kind with fewer preemptions when a preemption-bounded search
// (sched.Bounded, aimed at the kind) finds one within fewerBudget
// executions: the persistent sets pick which thread runs by what
// conflicts, not by who ran last, so the first violation they meet
// often switches threads more than it needs to, and a trace with fewer
// switches is the one a reader follows (naive.py: 2 preemptions, not 4).
func (p *Program) fewerPreemptions(res sched.Result, asked func() bool) sched.Result {
	n := sched.CountPreemptions(New(p), res.Schedule)
	if n == 0 {
		return res
	}
	b := sched.Bounded{MaxPreemptions: n - 1}.Run(sched.NewAiming(New(p), res.Failure.Kind), sched.Limits{MaxExecutions: fewerBudget, Stop: asked})
	if b.Verdict != sched.Violation || b.Failure.Kind != res.Failure.Kind {
		return res
	}
	res.Schedule, res.Failure = b.Schedule, b.Failure
	return res
}
