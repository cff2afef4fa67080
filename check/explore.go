package check

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"swapcheck/check/memory"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// Strategy names, as -strategy spells them.
const (
	// StrategyAuto is the default: the complete symmetry-reduced search
	// (states), the fastest that proves; a violation it finds is then
	// reduced to the fewest preemptions by a bounded search, within
	// AutoBoundedBudget steps.
	StrategyAuto    = "auto"
	StrategyStates  = "states"
	StrategyDFS     = "dfs"
	StrategyBFS     = "bfs"
	StrategyDPOR    = "dpor"
	StrategyPOR     = "por"
	StrategyBounded = "bounded"
	StrategyPCT     = "pct"
	StrategyRandom  = "random"
)

// StrategyDoc says what each strategy does, for -list.
var StrategyDoc = map[string]string{
	StrategyAuto:    "the default: por (states with faults under gil-breaker, where por reduces nothing), then, for a violation, bounded for the fewest preemptions; proves, and finds bugs with the fewest preemptions",
	StrategyStates:  "exhaustive stateful search, states equal up to permuting a block's threads counted once; -workers in parallel (proves)",
	StrategyDFS:     "exhaustive depth-first search with a visited set; -workers in parallel (proves)",
	StrategyBFS:     "exhaustive breadth-first search: the shortest counterexample (proves)",
	StrategyDPOR:    "exhaustive stateless search with source-set partial-order reduction and sleep sets; reports the reduction against every interleaving (proves); from three threads, or two calls per thread, on, por proves faster (docs/performance.md)",
	StrategyPOR:     "exhaustive stateful search with persistent sets from exact footprints, states equal up to permuting a block's threads counted once; -workers in parallel, counting the same (proves)",
	StrategyBounded: "every schedule with at most -preemptions preemptions, the fewest first (proves only when the bound never mattered)",
	StrategyPCT:     "-runs PCT runs aimed at bugs of depth -depth, with a per-run probability guarantee (finds, never proves)",
	StrategyRandom:  "-runs seeded random walks (finds, never proves)",
}

// AutoBoundedBudget is how many steps auto's bounded search, which looks
// for the counterexample with the fewest preemptions, may take before auto
// keeps the one the states search found (at most: the search counts them
// as it polls its limits, every sched.PollEvery): a count, not a time, so
// that the outcome does not depend on the machine. Scenarios of a few
// threads need a few thousand steps; with dozens of threads even one
// preemption can be out of reach (naive with 64 threads spends 0.1 s on
// it).
const AutoBoundedBudget = 1 << 18

// Strategies lists the strategies Explore knows.
var Strategies = []string{StrategyAuto, StrategyStates, StrategyDFS, StrategyBFS, StrategyDPOR, StrategyPOR, StrategyBounded, StrategyPCT, StrategyRandom}

// Config is one exploration.
type Config struct {
	Protocol  *model.Protocol
	Scenario  *scenario.Scenario
	Atomicity model.Atomicity
	Strategy  string
	// Scope is which violations the search looks for: harmful ones (the
	// zero value, ScopeHarmful), or all (ScopeAll, -after-failure). See
	// Harm.
	Scope Scope
	// Workers is how many goroutines an exhaustive stateful search uses
	// (0 or 1: one). Verdicts and counts do not depend on it; with more
	// than one, the preemption statistics can vary from run to run (see
	// sched.Parallel), but a counterexample is the one a search on one
	// worker finds, within CanonicalBudget steps (see canonical).
	Workers int
	// Shard and Shards (Shards > 1) run one part of an exhaustive search,
	// for independent processes whose summaries MergeSummaries combines.
	Shard, Shards int
	// Runs and Seed drive the random and pct strategies.
	Runs int64
	Seed uint64
	// Preemptions bounds the bounded strategy; Depth is PCT's bug depth.
	Preemptions int
	Depth       int
	// MaxExecutions and MaxDepth bound the search (0: unbounded, default).
	MaxExecutions int64
	MaxDepth      int
	// Timeout stops the search (0: none); the verdict is then incomplete.
	Timeout time.Duration
	// Stop, when set, is polled too (for example a Ctrl-C flag); the
	// report then says StopReason. It may be called from any goroutine,
	// and once true it must stay true (sched.Limits.Cancel).
	Stop       func() bool
	StopReason string
	// Progress, when set, receives the counts every few thousand steps.
	Progress func(sched.Stats)
	// Memory, when set, bounds the memory the process holds: a search
	// that reaches it ends incomplete, and says what to do instead.
	Memory *memory.Bound
	// Shrink makes a counterexample minimal (see Report.shrink): the
	// report then holds the shrunk scenario and counterexample, and
	// Shrink says what shrank. Not for one part of a sharded search,
	// whose parts must merge on one scenario.
	Shrink bool
	// Shape, when flags built Scenario, is their shape: shrinking then
	// reduces its dimensions, and the shrunk scenario has flags too.
	Shape *scenario.Shape
	// Corpus, when set, is replayed before the search (see Corpus): an
	// entry that replays to a violation on Scenario is the report's
	// counterexample, and no search runs. Not for one part of a sharded
	// search, which searches its share alone.
	Corpus *Corpus
	// rerun: this search checks that a shrunk scenario's flags
	// reproduce a shrunk counterexample (see shrinker.reproduces).
	rerun bool
}

// Report is the outcome of Explore.
type Report struct {
	Config  Config
	Program *model.Program
	Result  sched.Result
	// Shortened is true when the counterexample was replaced by one with
	// the fewest steps (a breadth-first search after the first find).
	Shortened bool
	// Elapsed is the search time (the shortening excluded).
	Elapsed time.Duration
	// LocksLeft is the most per-module locks an execution left behind
	// (allowed: merged keeps one lock per module forever).
	LocksLeft int
	// Faulted counts the executions that ended with a fault (System.Faulted).
	Faulted int64
	// Preemptions is the counterexample's number of preemptions.
	Preemptions int
	// Plan says what the auto strategy ran, phase by phase, and what any
	// strategy ran after the search (see canonical).
	Plan []string
	// unminimized: auto's bounded search was cut before it found the
	// counterexample with the fewest preemptions
	unminimized bool
	// searchSteps, when not 0, is the steps that the search whose
	// counterexample the report holds took on one worker (see
	// canonical), for the shortening's budget: Result.Stats.Steps then
	// counts several workers' steps, which depend on timing.
	searchSteps int64
	// PeakRSSBytes is the most memory the process had held resident when
	// the report was finished (0 where the system does not say).
	PeakRSSBytes int64
	// Interleavings, for a verified dpor search, is how many executions a
	// search reducing nothing would run (sched.Interleavings): what DPOR's
	// executions are reduced from. 0 where it was not counted.
	Interleavings float64
	// Shrink says what shrinking made smaller (nil when it did not run).
	Shrink *Shrinking
	// Harm is the class of the counterexample's violation (0 without one).
	Harm Harm
	// AfterFailures counts the steps at which the search (every phase of
	// it) stepped past an after-failure violation under ScopeHarmful, and
	// AfterFailureKinds their kinds: violations that hurt nobody, which
	// -after-failure shows.
	AfterFailures     int64
	AfterFailureKinds []string
	// Corpus is the corpus file whose schedule gave the counterexample
	// before any search ran ("" when a search found it, see
	// Config.Corpus); for a replay, what the replayed file recorded.
	Corpus string
	// CorpusRun says what replaying Config.Corpus did (nil without one).
	CorpusRun *CorpusRun
	// recordedShrunk is, for a replay, what the replayed file recorded
	// of its shrinking (ShrunkText).
	recordedShrunk string
}

// ShrunkText says what shrinking made smaller, from what to what
// (Shrinking.String); for a replay, what the file replayed recorded; ""
// when shrinking did not run.
func (r *Report) ShrunkText() string {
	if r.Shrink != nil {
		return r.Shrink.String()
	}
	return r.recordedShrunk
}

// strategy builds the configured strategy.
func strategy(cfg Config) (sched.Strategy, error) {
	parallel := cfg.Workers > 1 || cfg.Shards > 1
	if cfg.Shards > 1 && cfg.Strategy != StrategyDFS && cfg.Strategy != StrategyStates {
		return nil, fmt.Errorf("-shard splits an exhaustive stateful search (-strategy states or dfs), not %s", cfg.Strategy)
	}
	switch cfg.Strategy {
	case StrategyStates:
		if parallel {
			return sched.Parallel{Workers: max(cfg.Workers, 1), Symmetry: true, Shard: cfg.Shard, Shards: cfg.Shards}, nil
		}
		return sched.States{}, nil
	case StrategyDFS:
		if parallel {
			return sched.Parallel{Workers: max(cfg.Workers, 1), Shard: cfg.Shard, Shards: cfg.Shards}, nil
		}
		return sched.DFS{}, nil
	case StrategyBFS:
		return sched.BFS{}, nil
	case StrategyDPOR:
		return sched.DPOR{}, nil
	case StrategyPOR:
		return sched.POR{Workers: cfg.Workers}, nil
	case StrategyBounded:
		if cfg.Preemptions < 0 {
			return nil, fmt.Errorf("bounded needs -preemptions of at least 0, got %d", cfg.Preemptions)
		}
		return sched.Bounded{MaxPreemptions: cfg.Preemptions}, nil
	case StrategyPCT:
		if cfg.Runs < 1 || cfg.Depth < 1 {
			return nil, fmt.Errorf("pct needs -runs and -depth of at least 1, got %d and %d", cfg.Runs, cfg.Depth)
		}
		return sched.PCT{Depth: cfg.Depth, Runs: int(cfg.Runs), Chooser: sched.NewSeeded(cfg.Seed)}, nil
	case StrategyRandom:
		if cfg.Runs < 1 {
			return nil, fmt.Errorf("random needs -runs of at least 1, got %d", cfg.Runs)
		}
		return sched.Random{Runs: cfg.Runs, Chooser: sched.NewSeeded(cfg.Seed)}, nil
	}
	return nil, fmt.Errorf("unknown strategy %q (want one of %s)", cfg.Strategy, strings.Join(Strategies, ", "))
}

// Explore runs the configured search (after the corpus, when there is
// one).
func Explore(cfg Config) (rep *Report, err error) {
	prog, err := model.NewProgram(cfg.Scenario, cfg.Protocol, cfg.Atomicity)
	if err != nil {
		return nil, err
	}
	cfg.Strategy = cmp.Or(cfg.Strategy, StrategyAuto)
	cfg.Scope = cmp.Or(cfg.Scope, ScopeHarmful)
	start := time.Now()
	var why string
	lim := sched.Limits{MaxExecutions: cfg.MaxExecutions, MaxDepth: cfg.MaxDepth, Stop: stopFunc(start, cfg, &why), Progress: cfg.Progress, Cancel: cancelFunc(start, cfg)}
	if cfg.Memory.Limit() > 0 {
		lim.Afford = cfg.Memory.Afford
	}
	if cfg.Strategy != StrategyAuto {
		// bad input is refused before a corpus could answer
		if _, err := strategy(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.Corpus != nil && cfg.Shards <= 1 {
		c := cfg.Corpus
		run := &CorpusRun{Dir: c.Dir, Entries: len(c.Entries), Unread: len(c.Unread)}
		if rep := replayCorpus(c, cfg, prog, run); rep != nil {
			// found at once: neither searched nor shortened, but shrunk
			// as a search's would be
			rep.CorpusRun = run
			rep.Preemptions = sched.CountPreemptions(NewSystem(prog), rep.Result.Schedule)
			if cfg.Shrink {
				rep.shrink(lim)
			}
			rep.PeakRSSBytes = peakRSS()
			return rep, nil
		}
		defer func() {
			if rep != nil {
				rep.CorpusRun = run
			}
		}()
	}
	rep = &Report{Config: cfg, Program: prog}
	sys := NewScopedSystem(prog, cfg.Scope)
	if cfg.Strategy == StrategyAuto {
		if cfg.Shards > 1 {
			return nil, fmt.Errorf("-shard splits an exhaustive stateful search (-strategy states or dfs), not auto")
		}
		rep.Result = rep.auto(sys, lim)
	} else {
		strat, err := strategy(cfg)
		if err != nil {
			return nil, err
		}
		if cfg.Strategy == StrategyRandom || cfg.Strategy == StrategyPCT {
			sys.RecordHistory() // walks: each execution's history is checked whole
		}
		rep.Result = strat.Run(sys, lim)
		if one, ok := byWorkers(cfg); ok && rep.Result.Verdict == sched.Violation {
			var line string
			rep.Result, line = rep.canonical(rep.Result, one, sys, lim)
			rep.Plan = append(rep.Plan, line)
		}
	}
	rep.Elapsed = time.Since(start)
	rep.LocksLeft = sys.LocksLeft()
	rep.AfterFailures, rep.AfterFailureKinds = sys.AfterFailures()
	rep.Faulted = sys.Faulted()
	if cfg.Strategy == StrategyDPOR && rep.Result.Verdict == sched.Verified {
		// after Elapsed: the count is a stateful pass of its own
		if n, _, ok := sched.Interleavings(NewScopedSystem(prog, cfg.Scope), lim); ok {
			rep.Interleavings = n
		}
	}
	if rep.Result.Verdict == sched.Incomplete && why != "" {
		rep.Result.Cut = why
	}
	if rep.Result.Verdict == sched.Violation {
		// A bounded search's counterexample has the fewest preemptions; any
		// other is replaced by the shortest.
		if cfg.Strategy != StrategyBFS && cfg.Strategy != StrategyBounded && (cfg.Strategy != StrategyAuto || rep.unminimized) {
			rep.shorten(lim)
		}
		rep.Preemptions = sched.CountPreemptions(NewScopedSystem(prog, cfg.Scope), rep.Result.Schedule)
		if cfg.Shrink && cfg.Shards <= 1 {
			rep.shrink(lim)
		}
		rep.Harm = FailureHarm(rep.Program, rep.Result.Schedule, rep.Result.Failure)
	}
	rep.PeakRSSBytes = peakRSS()
	return rep, nil
}

// auto runs the default plan: prove with the complete search that proves
// fastest, and reduce a violation it finds to one with the fewest
// preemptions by a bounded search (CHESS's iterative context bounding, up
// to the preemptions of the one found), within AutoBoundedBudget steps. A
// search that ran first bounded up to a few preemptions, as auto once
// did, costs far more than the proof when there is no bug: 53 s against
// 0.04 s for merged with 7 threads.
//
// The complete search is por where the program's futures are known
// (model.Program.FuturesKnown), states with symmetry otherwise, each on
// the workers: por ran faster on every scenario of docs/performance.md's
// tables, from 1.2 times (-threads 4 -branch) to hundreds of times,
// where its persistent sets reduce anything; where they cannot it is
// states. On several workers por counts as on one (sched.POR), so the
// output does not depend on them but for the preemption statistics.
func (r *Report) auto(sys *System, lim sched.Limits) sched.Result {
	workers := max(r.Config.Workers, 1) // auto refuses -shard (Explore)
	// search runs on the workers, one on one worker: its counterexample,
	// the same on every run
	var search, one sched.Strategy = sched.Parallel{Workers: workers, Symmetry: true}, sched.Parallel{Workers: 1, Symmetry: true}
	name := fmt.Sprintf("states (symmetry reduction, %s)", Count(workers, "worker"))
	if r.Program.FuturesKnown() {
		search, one = sched.POR{Workers: workers}, sched.POR{}
		name = fmt.Sprintf("por (persistent sets, symmetry reduction, %s)", Count(workers, "worker"))
	}
	if r.Program.Sections() {
		// each critical section one step, and a thread that starts one
		// runs alone (model/reduce_sections.go): it proves far more
		// cheaply; a violation it meets is searched for again below,
		// in the world of instructions, whose trace is reported
		sname := fmt.Sprintf("por over critical sections (each with-lock block one step; persistent sets, symmetry reduction, %s)", Count(workers, "worker"))
		res := search.Run(Sections(sys), lim)
		switch res.Verdict {
		case sched.Verified:
			r.Plan = append(r.Plan, sname+": verified")
			return res
		case sched.Violation:
			r.Plan = append(r.Plan, sname+": violation; searching again step by step for its trace")
		default:
			r.Plan = append(r.Plan, sname+": stopped")
			return res
		}
	}
	complete := search.Run(sys, lim)
	switch complete.Verdict {
	case sched.Verified:
		r.Plan = append(r.Plan, name+": verified")
		return complete
	case sched.Violation:
	default:
		r.Plan = append(r.Plan, name+": stopped")
		return complete
	}
	var line string
	if workers > 1 {
		complete, line = r.canonical(complete, one, sys, lim)
	}
	p := sched.CountPreemptions(NewScopedSystem(r.Program, r.Config.Scope), complete.Schedule)
	r.Plan = append(r.Plan, fmt.Sprintf("%s: violation with %s", name, Count(p, "preemption")))
	if line != "" {
		r.Plan = append(r.Plan, line)
	}
	budget, spent := budgeted(lim, debugOr(debug.autoBoundedBudget, AutoBoundedBudget))
	fewest := sched.Bounded{MaxPreemptions: p}.Run(sys, budget)
	if fewest.Verdict != sched.Violation {
		// keep what the complete search found, shortened as any other
		// strategy's counterexample
		switch {
		case *spent:
			r.Plan = append(r.Plan, fmt.Sprintf("bounded (up to %s): cut after %s, so %s may not be the fewest", Count(p, "preemption"), Count(fewest.Stats.Steps, "step"), Count(p, "preemption")))
		case fewest.Verdict == sched.Incomplete:
			r.Plan = append(r.Plan, fmt.Sprintf("bounded (up to %s): stopped, so %s may not be the fewest", Count(p, "preemption"), Count(p, "preemption")))
		default: // not expected: both count preemptions alike
			r.Plan = append(r.Plan, fmt.Sprintf("bounded (up to %s): found none, so the states counterexample stands", Count(p, "preemption")))
		}
		r.unminimized = true
		if r.searchSteps > 0 {
			r.searchSteps += fewest.Stats.Steps
		}
		complete.Stats.Steps += fewest.Stats.Steps
		complete.Stats.AddExecutions(fewest.Stats)
		return complete
	}
	r.Plan = append(r.Plan, fmt.Sprintf("bounded (up to %s): the fewest, %d", Count(p, "preemption"), fewest.Preemptions))
	fewest.Stats.Steps += complete.Stats.Steps
	fewest.Stats.AddExecutions(complete.Stats)
	fewest.Stats.States = complete.Stats.States
	return fewest
}

// budgeted is lim with a budget of steps more: the search stops after
// that many steps (counted at Stop's polls, every sched.PollEvery steps,
// where a step of a large state counts as several: see sched.Limits), and
// *spent then says so.
func budgeted(lim sched.Limits, steps int64) (sched.Limits, *bool) {
	spent := new(bool)
	taken := int64(0)
	inner := lim.Stop
	lim.Stop = func() bool {
		if inner != nil && inner() {
			return true
		}
		if taken += sched.PollEvery; taken > steps {
			*spent = true
			return true
		}
		return false
	}
	return lim, spent
}

// shorten replaces the counterexample by the first one a breadth-first
// search finds (fewest steps, and the same whatever found the first), unless
// that search is cut short by its budget.
func (r *Report) shorten(lim sched.Limits) {
	if debug.noShorten {
		return
	}
	lim.Progress = nil
	lim, _ = budgeted(lim, max(4*cmp.Or(r.searchSteps, r.Result.Stats.Steps), 1_000_000))
	short := sched.BFS{}.Run(NewScopedSystem(r.Program, r.Config.Scope), lim)
	// Take the breadth-first one even at equal length: it does not depend
	// on the search's order (or, in parallel, on timing).
	if short.Verdict == sched.Violation && len(short.Schedule) <= len(r.Result.Schedule) {
		r.Shortened = len(short.Schedule) < len(r.Result.Schedule)
		r.Result.Failure, r.Result.Schedule = short.Failure, short.Schedule
	}
}

// stopFunc polls the caller's Stop and the timeout, and says in *why which
// one stopped the search.
func stopFunc(start time.Time, cfg Config, why *string) func() bool {
	cause := stopCause(start, cfg)
	if cause == nil {
		return nil
	}
	return func() bool {
		if c := cause(); c != "" {
			*why = c
			return true
		}
		return false
	}
}

// cancelFunc is stopFunc's question without its answer's reason: the
// search's Limits.Cancel, which a large grow of its visited set asks from
// any goroutine (see sched.Limits).
func cancelFunc(start time.Time, cfg Config) func() bool {
	cause := stopCause(start, cfg)
	if cause == nil {
		return nil
	}
	return func() bool { return cause() != "" }
}

// stopCause says why a search started at start must stop now, "" while it
// need not: the caller's Stop, the timeout, or the memory bound (with
// what to do instead). It is nil when cfg sets none of them.
func stopCause(start time.Time, cfg Config) func() string {
	if cfg.Timeout <= 0 && cfg.Stop == nil && cfg.Memory.Limit() <= 0 {
		return nil
	}
	return func() string {
		if cfg.Stop != nil && cfg.Stop() {
			return cmp.Or(cfg.StopReason, "stopped by the caller")
		}
		if cfg.Timeout > 0 && time.Since(start) > cfg.Timeout {
			return fmt.Sprintf("-timeout %s reached", cfg.Timeout)
		}
		if cfg.Memory.Over() {
			return cfg.Memory.Reason() + "; " + memory.Advice
		}
		return ""
	}
}

// Verified reports whether the report proves the scenario correct: an
// exhaustive search that finished.
func (r *Report) Verified() bool { return r.Result.Verdict == sched.Verified && r.Result.Complete }

// PCTLength is k, the execution length a pct run assumes.
func PCTLength(r *Report) int {
	return sched.PCT{}.EstimateLength(NewScopedSystem(r.Program, r.Config.Scope))
}

// PCTGuarantee is the per-run probability that a pct run of the report's
// configuration finds a bug of its depth: 1/(n*k^(d-1)); 0 for other
// strategies.
func PCTGuarantee(r *Report) float64 {
	if r.Config.Strategy != StrategyPCT {
		return 0
	}
	return sched.PCTBound(r.Program.NumThreads(), PCTLength(r), r.Config.Depth)
}
