package check

import (
	"cmp"
	"fmt"
	"time"

	"swapcheck/model"
	"swapcheck/sched"
)

// Strategy names, as -strategy spells them.
const (
	StrategyDFS    = "dfs"
	StrategyBFS    = "bfs"
	StrategyRandom = "random"
)

// Strategies lists the strategies Explore knows.
var Strategies = []string{StrategyDFS, StrategyBFS, StrategyRandom}

// Config is one exploration.
type Config struct {
	Protocol  *model.Protocol
	Scenario  *model.Scenario
	Atomicity model.Atomicity
	Strategy  string
	// Workers is how many goroutines an exhaustive stateful search uses
	// (0 or 1: one). Verdicts and counts do not depend on it.
	Workers int
	// Shard and Shards (Shards > 1) run one part of an exhaustive search,
	// for independent processes whose summaries MergeSummaries combines.
	Shard, Shards int
	// Runs and Seed drive the random strategy.
	Runs int64
	Seed uint64
	// MaxExecutions and MaxDepth bound the search (0: unbounded, default).
	MaxExecutions int64
	MaxDepth      int
	// Timeout stops the search (0: none); the verdict is then incomplete.
	Timeout time.Duration
	// Stop, when set, is polled too (for example a Ctrl-C flag); the
	// report then says StopReason.
	Stop       func() bool
	StopReason string
	// Progress, when set, receives the counts every few thousand steps.
	Progress func(sched.Stats)
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
}

// Explore runs the configured search.
func Explore(cfg Config) (*Report, error) {
	prog, err := model.NewProgram(cfg.Scenario, cfg.Protocol, cfg.Atomicity)
	if err != nil {
		return nil, err
	}
	var strat sched.Strategy
	switch cfg.Strategy {
	case StrategyDFS, "":
		cfg.Strategy, strat = StrategyDFS, sched.DFS{}
		if cfg.Workers > 1 || cfg.Shards > 1 {
			strat = sched.Parallel{Workers: max(cfg.Workers, 1), Shard: cfg.Shard, Shards: cfg.Shards}
		}
	case StrategyBFS:
		strat = sched.BFS{}
	case StrategyRandom:
		if cfg.Runs < 1 {
			return nil, fmt.Errorf("random needs -runs of at least 1, got %d", cfg.Runs)
		}
		strat = sched.Random{Runs: cfg.Runs, Chooser: sched.NewSeeded(cfg.Seed)}
	default:
		return nil, fmt.Errorf("unknown strategy %q (want dfs, bfs or random)", cfg.Strategy)
	}
	if cfg.Shards > 1 && strat.Name() != StrategyDFS {
		return nil, fmt.Errorf("-shard splits an exhaustive search (-strategy dfs), not %s", cfg.Strategy)
	}
	start := time.Now()
	var why string
	lim := sched.Limits{MaxExecutions: cfg.MaxExecutions, MaxDepth: cfg.MaxDepth, Stop: stopFunc(start, cfg, &why), Progress: cfg.Progress}
	sys := NewSystem(prog)
	if !strat.Exhaustive() {
		sys.RecordHistory()
	}
	res := strat.Run(sys, lim)
	if res.Verdict == sched.Incomplete && why != "" {
		res.Cut = why
	}
	rep := &Report{Config: cfg, Program: prog, Result: res, Elapsed: time.Since(start), LocksLeft: sys.LocksLeft()}
	if res.Verdict == sched.Violation && cfg.Strategy != StrategyBFS {
		rep.shorten(lim)
	}
	return rep, nil
}

// shorten replaces the counterexample by the first one a breadth-first
// search finds (fewest steps, and the same whatever found the first), unless
// that search is cut short by its budget.
func (r *Report) shorten(lim sched.Limits) {
	lim.Progress = nil
	budget := max(4*r.Result.Stats.Steps, 1_000_000)
	steps := int64(0)
	inner := lim.Stop
	lim.Stop = func() bool {
		steps += 1 << 12
		return steps > budget || (inner != nil && inner())
	}
	short := sched.BFS{}.Run(NewSystem(r.Program), lim)
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
	if cfg.Timeout <= 0 && cfg.Stop == nil {
		return nil
	}
	return func() bool {
		if cfg.Stop != nil && cfg.Stop() {
			*why = cmp.Or(cfg.StopReason, "stopped by the caller")
			return true
		}
		if cfg.Timeout > 0 && time.Since(start) > cfg.Timeout {
			*why = fmt.Sprintf("-timeout %s reached", cfg.Timeout)
			return true
		}
		return false
	}
}

// Verified reports whether the report proves the scenario correct: an
// exhaustive search that finished.
func (r *Report) Verified() bool { return r.Result.Verdict == sched.Verified && r.Result.Complete }
