package stress

import (
	"fmt"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// Config is one stress run.
type Config struct {
	Protocol  *model.Protocol
	Scenario  *scenario.Scenario
	Atomicity model.Atomicity
	// Duration and MaxCalls bound the run (0: no bound; at least one must
	// be set). Both are checked between launches: the launch under way
	// finishes.
	Duration time.Duration
	MaxCalls int64
	// Seed seeds the scheduling noise (see Gosched). The Go scheduler
	// itself is not seeded: two runs with one seed differ.
	Seed uint64
	// Gosched is the probability that a goroutine calls runtime.Gosched
	// after a step, 0 to 1.
	Gosched float64
	// KeepGoing counts violations instead of stopping at the first, and
	// records no schedules (benchmarks: a call costs the same whether or
	// not it fails).
	KeepGoing bool
	// Stop, when set, is polled between launches; the verdict is then
	// incomplete, and says StopReason.
	Stop       func() bool
	StopReason string
	// Before is how many steps before a violation its report lists
	// (0: DefaultBefore).
	Before int
}

// DefaultBefore is how many steps before a violation a report lists.
const DefaultBefore = 12

// DefaultGosched is Config.Gosched for the command line: over the buggy
// variants it found the first violation sooner than never (0), often
// (0.5) or always (1) yielding (see README, "Stress on goroutines").
const DefaultGosched = 0.1

// Result is the outcome of Run.
type Result struct {
	Config  Config
	Program *model.Program
	// Verdict is Violation, NoViolationFound (the budget was spent) or
	// Incomplete (Stop said so; Cut says why).
	Verdict sched.Verdict
	Cut     string
	// Launches, Calls (device calls entered) and Steps are counted over
	// the whole run; Elapsed is its wall time.
	Launches, Calls, Steps int64
	Elapsed                time.Duration
	// Violations counts the launches that broke an invariant (KeepGoing).
	Violations int64
	// Violation is the first violation (without KeepGoing).
	Violation *Violation
	// LocksLeft is the most per-module locks a launch left behind
	// (allowed: merged keeps one per module).
	LocksLeft int
}

// CallsPerSec is the device calls entered per second of the run.
func (r *Result) CallsPerSec() float64 {
	if s := r.Elapsed.Seconds(); s > 0 {
		return float64(r.Calls) / s
	}
	return 0
}

// Violation is the first broken invariant of a run.
type Violation struct {
	Failure sched.Failure
	// Launch is the launch it broke in (1-based); After, the time from
	// the run's start to its detection; Calls, the device calls entered
	// before it, over all launches (in the failing launch: those its
	// schedule enters).
	Launch int64
	After  time.Duration
	Calls  int64
	// Schedule is the failing launch's steps, each a thread, in the order
	// they took effect, up to the failing step (or every step, for an
	// end-state failure or a deadlock).
	Schedule []sched.ThreadID
	// Reproduced says whether the simulator, replaying Schedule, met the
	// same failure; Note says what it met when it did not.
	Reproduced bool
	Note       string
	// Recent are the last steps of Schedule, replayed with their effects.
	Recent []check.TraceStep
	// FirstRecent is the 1-based step number of Recent[0].
	FirstRecent int
}

func (cfg *Config) validate() error {
	switch {
	case cfg.Protocol == nil:
		return fmt.Errorf("stress: no protocol")
	case cfg.Scenario == nil:
		return fmt.Errorf("stress: no scenario")
	case cfg.Duration < 0:
		return fmt.Errorf("-duration must be 0 or more, got %s", cfg.Duration)
	case cfg.MaxCalls < 0:
		return fmt.Errorf("-max-calls must be 0 or more, got %d", cfg.MaxCalls)
	case cfg.Duration == 0 && cfg.MaxCalls == 0:
		return fmt.Errorf("a stress run needs a budget: -duration, -max-calls or both")
	case !(cfg.Gosched >= 0 && cfg.Gosched <= 1):
		return fmt.Errorf("-gosched must be between 0 and 1, got %g", cfg.Gosched)
	case cfg.Before < 0:
		return fmt.Errorf("stress: Before must be 0 or more, got %d", cfg.Before)
	case cfg.Scenario.NumHosts() > 1:
		// the launch's goroutines start GPU threads in one host's order
		return fmt.Errorf("-backend goroutines runs one host thread, got hosts %d", cfg.Scenario.NumHosts())
	}
	return cfg.Scenario.ValidateUpTo(scenario.MaxStressThreads)
}
