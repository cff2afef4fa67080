package sched

// Verdict is the outcome of a search, as a value.
type Verdict uint8

const (
	// Violation: a counterexample was found (Result.Failure, Result.Schedule).
	Violation Verdict = 1 + iota
	// Verified: an exhaustive search finished and found no violation.
	Verified
	// NoViolationFound: a non-exhaustive search (random walks) finished
	// without finding a violation. It proves nothing.
	NoViolationFound
	// Incomplete: the search was cut short (a limit, a stop request) before
	// it finished and found no violation in what it covered.
	Incomplete
)

func (v Verdict) String() string {
	return enumName("Verdict", v, "violation", "verified", "no-violation-found", "incomplete")
}

// Limits bound a search. The zero value means: no execution limit, the
// default depth budget, never stop early.
type Limits struct {
	// MaxExecutions stops the search after this many executions (0: none):
	// exactly so on one worker; Parallel on W workers counts at most W-1
	// more (each worker stops within one execution of the run's limit).
	MaxExecutions int64
	// MaxDepth is the per-execution step budget (0: DefaultMaxDepth). An
	// execution that reaches it makes the verdict Incomplete, never silently
	// shorter.
	MaxDepth int
	// Stop is polled every few thousand steps (PollEvery), or fewer
	// where the states are large: a step that copies or keys a state
	// counts one more for every 16 bytes of its key; when it returns
	// true the search ends with verdict Incomplete. The caller owns the
	// clock.
	Stop func() bool
	// Progress, when set, is called at the same points with the counts so
	// far (for a progress bar; it must return quickly).
	Progress func(Stats)
	// Cancel, when set, says whether the search is to end now (a deadline
	// passed, the user interrupted it). Unlike Stop it counts nothing, and
	// any goroutine may call it at any time: work that runs long without
	// polling Stop (growing a large visited set) asks it, and gives up.
	// Once it returns true, Stop must return true at its next poll.
	Cancel func() bool
	// Afford, when set, is asked, from any goroutine, before a search
	// takes a large block of memory at once (its visited set's next
	// table, of bytes): false refuses it, where the search can do
	// without it until it stops. Once it returns false, Cancel and Stop
	// must return true: the search is to end (the caller measures the
	// memory; nothing here reads it from the system).
	Afford func(bytes int64) bool
}

// DefaultMaxDepth is the per-execution step budget when Limits.MaxDepth is 0.
const DefaultMaxDepth = 100_000

func (l Limits) maxDepth() int {
	if l.MaxDepth > 0 {
		return l.MaxDepth
	}
	return DefaultMaxDepth
}

// PollEvery is how many steps pass between two calls of Limits.Stop,
// where a step of a large state counts as several (see Limits.Stop); a
// Stop may count the search's work by it.
const PollEvery = 1 << 12

// Stats counts the work a search did.
type Stats struct {
	// Executions: complete executions for walks; for stateful searches, the
	// paths that ended (at a final state, or at a state already visited).
	Executions int64
	// Steps executed in all.
	Steps int64
	// States: distinct states stored by a stateful search.
	States int64
	// Matched: steps that led to a state already visited.
	Matched int64
	// Depth: the longest execution, in steps (a stateful search's longest
	// path from the initial state), unless DepthUnmeasured.
	Depth int
	// DepthUnmeasured: the search does not measure Depth, which is then 0
	// (Parallel: the longest path depends on which worker reached a state
	// first).
	DepthUnmeasured bool
	// MemoryBytes: what a stateful search's visited set holds.
	MemoryBytes int64
	// SleepBlocked: executions DPOR abandoned because every runnable
	// thread was asleep, their orders covered elsewhere (counted in
	// Executions too).
	SleepBlocked int64
	// PreemptionsMin, PreemptionsMax and PreemptionsSum are over the
	// preemptions (as CountPreemptions counts them) of each execution
	// counted in Executions, on the path the search took from the initial
	// state; Min and Max mean something only when Executions > 0. A
	// stateful search expands a state once, from the path that reached it
	// first, so the counts follow the search's order (fixed, for a
	// sequential search).
	PreemptionsMin, PreemptionsMax int
	PreemptionsSum                 int64
	// PreemptionsByTiming: the preemption statistics depend on which of
	// several workers reached a state first (Parallel with Workers > 1),
	// so they can differ between runs; the other counts do not.
	PreemptionsByTiming bool
	// CountsByTiming: States, Steps, Matched and Executions, too, can
	// differ between runs (POR with Workers > 1: which state of an orbit
	// a worker reaches first decides which persistent sets are taken).
	CountsByTiming bool
}

// PreemptionsMean is the mean number of preemptions per execution (0 when
// there was none).
func (s Stats) PreemptionsMean() float64 {
	if s.Executions == 0 {
		return 0
	}
	return float64(s.PreemptionsSum) / float64(s.Executions)
}

// AddExecutions adds o's executions, with their preemption statistics, to
// s's. Searches that run one after another combine their stats with it.
func (s *Stats) AddExecutions(o Stats) {
	if o.Executions == 0 {
		return
	}
	if s.Executions == 0 || o.PreemptionsMin < s.PreemptionsMin {
		s.PreemptionsMin = o.PreemptionsMin
	}
	s.PreemptionsMax = max(s.PreemptionsMax, o.PreemptionsMax)
	s.PreemptionsSum += o.PreemptionsSum
	s.Executions += o.Executions
	s.PreemptionsByTiming = s.PreemptionsByTiming || o.PreemptionsByTiming
	s.CountsByTiming = s.CountsByTiming || o.CountsByTiming
}

// execution counts one execution that had p preemptions.
func (s *Stats) execution(p int) {
	if s.Executions == 0 || p < s.PreemptionsMin {
		s.PreemptionsMin = p
	}
	s.PreemptionsMax = max(s.PreemptionsMax, p)
	s.PreemptionsSum += int64(p)
	s.Executions++
}

// Result is what a search returns.
type Result struct {
	Verdict Verdict
	// Complete is true when the search covered everything it set out to.
	Complete bool
	// Failure and Schedule describe the counterexample of a Violation:
	// Schedule is the thread of each step from the initial state, and its
	// last step is the failing one (or, for an end-state or deadlock
	// failure, the last step before it).
	Failure  *Failure
	Schedule []ThreadID
	// Walk is the schedule of an execution that found no violation
	// (NoViolationFound): the one walk of a Random or PCT search of one
	// run, or the schedule Replay ran. It is what a replay of a schedule
	// without a violation replays (explore -emit-python).
	Walk  []ThreadID
	Stats Stats
	// Cut says why an Incomplete search stopped, or, for a bounded search
	// that found nothing, what it covered.
	Cut string
	// Preemptions is set by Bounded: for a Violation, the preemptions in
	// Schedule, the fewest of any counterexample (see CountPreemptions);
	// when Verified, the bound under which the search found that the
	// bound stopped nothing.
	Preemptions int
}
