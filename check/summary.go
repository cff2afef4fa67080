package check

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"swapcheck/model"
	"swapcheck/sched"
)

// Summary is the machine-readable report (summary.json, -json).
type Summary struct {
	// Version is the explore that wrote it (check.Version), Format its
	// layout (FormatVersion; absent in files written before the field,
	// which are format 1).
	Version   string `json:"version,omitempty"`
	Format    int    `json:"format,omitempty"`
	Protocol  string `json:"protocol"`
	Atomicity string `json:"atomicity"`
	Strategy  string `json:"strategy"`
	// Violations is the search's Scope: "harmful" (the default: "verified"
	// means no harmful violation) or "all" (-after-failure).
	Violations string `json:"violations,omitempty"`
	Scenario   string `json:"scenario"`
	// Shard is "i/n" for one part of a sharded search.
	Shard string `json:"shard,omitempty"`
	// Verdict is the search's, or, for a part of a sharded search that
	// found no violation in its share, PartNoViolation: a part proves
	// nothing alone.
	Verdict string `json:"verdict"`
	// Complete: the search ran to its end and proves its verdict; never
	// for a part, whose share's end is ShareComplete.
	Complete      bool  `json:"complete"`
	ShareComplete bool  `json:"share_complete,omitempty"`
	Executions    int64 `json:"executions"`
	States        int64 `json:"states"`
	Steps         int64 `json:"steps"`
	// MaxDepth is the longest execution, in steps (a stateful search's
	// longest path from the initial state); absent where the search does
	// not measure it (the parallel stateful searches, where it depends on
	// which worker reached a state first), rather than a made-up 0.
	MaxDepth    *int    `json:"max_depth,omitempty"`
	ElapsedMS   float64 `json:"elapsed_ms"`
	StepsPerSec float64 `json:"steps_per_sec"`
	// Stopped says why an incomplete search stopped.
	Stopped string `json:"stopped,omitempty"`
	// LocksLeft is the most per-module locks an execution left in the
	// registry (allowed, reported).
	LocksLeft int `json:"locks_left"`
	// Faults are the scenario's faults (-faults, as it spells them) and
	// FaultedExecutions the executions that ended with one among their
	// steps (a stateful search: the end states it reached by such a
	// path); both absent without faults.
	Faults            string `json:"faults,omitempty"`
	FaultedExecutions int64  `json:"faulted_executions,omitempty"`
	// Matched counts steps that reached a state already stored; MemoryBytes
	// is what the visited set held; Plan is what auto ran.
	Matched     int64    `json:"matched"`
	MemoryBytes int64    `json:"memory_bytes"`
	Plan        []string `json:"plan,omitempty"`
	// Preemptions are per execution (absent when none was counted). A
	// stateful search counts along the path that first reached each
	// state; with several workers, that varies from run to run.
	Preemptions *PreemptionStats `json:"preemptions,omitempty"`
	// PeakRSSBytes is the most memory the process held resident (absent
	// where the system does not say). Like ElapsedMS it varies from run
	// to run.
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
	// PCTGuarantee is pct's per-run probability of finding a bug of its
	// depth.
	PCTGuarantee float64 `json:"pct_guarantee,omitempty"`
	// PCTGuaranteeLog10 is its base-10 logarithm, which stays exact when
	// the probability itself is below what a float64 holds (a deep -depth).
	PCTGuaranteeLog10 float64 `json:"pct_guarantee_log10,omitempty"`
	// Interleavings, for a verified dpor search, is how many executions a
	// search reducing nothing would run: what dpor's are reduced from
	// (exact below 2^53).
	Interleavings float64           `json:"interleavings,omitempty"`
	Seed          *uint64           `json:"seed,omitempty"`
	Violation     *ViolationSummary `json:"violation,omitempty"`
	// ViolationShard, in a merged summary, is the part ("i/n") whose
	// counterexample Violation is: its trace.txt and schedule.txt hold it.
	ViolationShard string `json:"violation_shard,omitempty"`
	// Shrunk says what shrinking made smaller (absent when it did not
	// run); Scenario and Violation are then the shrunk ones.
	Shrunk *ShrinkSummary `json:"shrunk,omitempty"`
	// Corpus is the corpus file whose schedule, replayed before any
	// search, gave Violation (absent when a search found it): no search
	// ran, and the counts are the replay's.
	Corpus string `json:"corpus,omitempty"`
	// AfterFailureSteps counts the steps at which the search stepped past
	// an after-failure violation (a thread of an already-failed launch
	// saw a wrong module; Violations "harmful" only), and
	// AfterFailureKinds are their kinds; absent when there were none.
	AfterFailureSteps int64    `json:"after_failure_steps,omitempty"`
	AfterFailureKinds []string `json:"after_failure_kinds,omitempty"`
}

// ShrinkSummary is what shrinking made smaller (see Shrinking).
type ShrinkSummary struct {
	// Text is the line the command prints after "shrunk: ".
	Text string `json:"text"`
	// FromScenario is the scenario searched, before shrinking.
	FromScenario    string         `json:"from_scenario"`
	Changes         []ShrinkChange `json:"changes,omitempty"`
	PreemptionsFrom int            `json:"preemptions_from"`
	PreemptionsTo   int            `json:"preemptions_to"`
	StepsFrom       int            `json:"steps_from"`
	StepsTo         int            `json:"steps_to"`
	// Searches the shrinking ran, Cut those its budget cut, Steps theirs.
	Searches  int     `json:"searches"`
	Cut       int     `json:"cut,omitempty"`
	Steps     int64   `json:"steps"`
	ElapsedMS float64 `json:"elapsed_ms"`
}

// ShrinkChange is one dimension of the scenario that shrank.
type ShrinkChange struct {
	Dim  string `json:"dim"`
	From string `json:"from"`
	To   string `json:"to"`
}

// shrinkSummary is s for summary.json.
func shrinkSummary(s *Shrinking) *ShrinkSummary {
	out := &ShrinkSummary{Text: s.String(), FromScenario: s.From.String(),
		PreemptionsFrom: s.PreemptionsFrom, PreemptionsTo: s.PreemptionsTo, StepsFrom: s.StepsFrom, StepsTo: s.StepsTo,
		Searches: s.Searches, Cut: s.Cut, Steps: s.Steps, ElapsedMS: float64(s.Elapsed.Microseconds()) / 1000}
	for _, c := range s.Changes {
		out.Changes = append(out.Changes, ShrinkChange(c))
	}
	return out
}

// PreemptionStats are the preemptions of a search's executions (see
// sched.CountPreemptions): the fewest, the mean and the most.
type PreemptionStats struct {
	Min  int     `json:"min"`
	Mean float64 `json:"mean"`
	Max  int     `json:"max"`
	// ByTiming: several workers searched, and which reached a state first
	// (so the path counted) can differ between runs.
	ByTiming bool `json:"by_timing,omitempty"`
}

// String renders the statistics for people.
func (p PreemptionStats) String() string {
	s := fmt.Sprintf("min %d, mean %.2f, max %d", p.Min, p.Mean, p.Max)
	if p.ByTiming {
		s += " (along the paths the workers happened to take first; may differ between runs)"
	}
	return s
}

// ViolationSummary describes a counterexample.
type ViolationSummary struct {
	Kind string `json:"kind"`
	// Harm is the violation's class: "harmful" or "after-failure".
	Harm    string `json:"harm,omitempty"`
	Message string `json:"message"`
	// Thread is the failing thread's name ("" for an end-state failure).
	Thread string `json:"thread"`
	// Step is the failing step's number (1-based), the last of Schedule.
	Step int `json:"step"`
	// Schedule is the thread number of every step, as in schedule.txt.
	Schedule    []int `json:"schedule"`
	TraceSteps  int   `json:"trace_steps"`
	Preemptions int   `json:"preemptions"`
	Shortened   bool  `json:"shortened"`
}

// Summarize builds the summary of a report.
func Summarize(r *Report) Summary {
	res := r.Result
	s := Summary{
		Version:       Version,
		Format:        FormatVersion,
		Protocol:      r.Config.Protocol.Name,
		Atomicity:     r.Config.Atomicity.String(),
		Strategy:      r.Config.Strategy,
		Violations:    cmp.Or(r.Config.Scope, ScopeHarmful).String(),
		Scenario:      r.Config.Scenario.String(),
		Verdict:       VerdictName(r),
		Complete:      res.Complete && r.Config.Shards <= 1,
		Executions:    res.Stats.Executions,
		States:        res.Stats.States,
		Steps:         res.Stats.Steps,
		ElapsedMS:     float64(r.Elapsed.Microseconds()) / 1000,
		Stopped:       res.Cut,
		LocksLeft:     r.LocksLeft,
		Faults:        r.Config.Scenario.Faults.String(),
		Matched:       res.Stats.Matched,
		MemoryBytes:   res.Stats.MemoryBytes,
		Plan:          r.Plan,
		PCTGuarantee:  PCTGuarantee(r),
		Interleavings: r.Interleavings,
		PeakRSSBytes:  r.PeakRSSBytes,

		AfterFailureSteps: r.AfterFailures,
		AfterFailureKinds: r.AfterFailureKinds,
	}
	if s.Faults != "" {
		s.FaultedExecutions = r.Faulted
	}
	if !res.Stats.DepthUnmeasured {
		depth := res.Stats.Depth
		s.MaxDepth = &depth
	}
	if st := res.Stats; st.Executions > 0 {
		s.Preemptions = &PreemptionStats{Min: st.PreemptionsMin, Mean: st.PreemptionsMean(), Max: st.PreemptionsMax, ByTiming: st.PreemptionsByTiming}
	}
	if r.Config.Shards > 1 {
		s.Shard = ShardName(r.Config)
		s.ShareComplete = res.Complete
	}
	if secs := r.Elapsed.Seconds(); secs > 0 {
		s.StepsPerSec = float64(res.Stats.Steps) / secs
	}
	if r.Config.Strategy == StrategyPCT {
		s.PCTGuaranteeLog10 = PCTGuaranteeLog10(r.Program.NumThreads(), PCTLength(r), r.Config.Depth)
	}
	if r.Config.Strategy == StrategyRandom || r.Config.Strategy == StrategyPCT {
		seed := r.Config.Seed
		s.Seed = &seed
	}
	if res.Verdict == sched.Violation {
		v := &ViolationSummary{
			Kind: res.Failure.Kind, Harm: cmp.Or(r.Harm, Harmful).String(), Message: res.Failure.Message, Thread: FailureThread(r.Program, *res.Failure),
			Step: len(res.Schedule), TraceSteps: len(res.Schedule), Shortened: r.Shortened, Preemptions: r.Preemptions,
			Schedule: ScheduleInts(res.Schedule),
		}
		s.Violation = v
	}
	s.Corpus = r.Corpus
	if r.Shrink != nil {
		s.Shrunk = shrinkSummary(r.Shrink)
	}
	return s
}

// FailureThread names the thread whose step failed, as a summary does
// ("" when the failure is no one thread's, as a deadlock is).
func FailureThread(p *model.Program, f sched.Failure) string {
	if f.Thread < 0 {
		return ""
	}
	return p.ThreadName(int(f.Thread))
}

// ScheduleInts is a schedule as a summary's JSON holds it: each step's
// thread number.
func ScheduleInts(schedule []sched.ThreadID) []int {
	out := make([]int, len(schedule))
	for i, t := range schedule {
		out[i] = int(t)
	}
	return out
}

// PCTGuaranteeLog10 is log10 of pct's per-run guarantee 1/(n*k^(d-1)) for
// n threads, k steps and depth d.
func PCTGuaranteeLog10(n, k, d int) float64 {
	return -(math.Log10(float64(n)) + float64(d-1)*math.Log10(float64(k)))
}

// ReadSummary parses a summary.json, refusing one of another format.
func ReadSummary(data []byte) (Summary, error) {
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("not a summary.json: %v", err)
	}
	return s, checkFormat("summary", s.Format, versionText(s.Version))
}

// versionText is a version read from a file, fit for a one-line message:
// as it is when printable ASCII, else quoted.
func versionText(v string) string {
	if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' || r > '~' }) {
		return strconv.Quote(v)
	}
	return v
}

// WriteJSON writes the summary as indented JSON.
func (s Summary) WriteJSON(out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false) // read by people: "threads 4 -> 2", not put in HTML
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// PartNoViolation is the verdict of a part of a sharded search that
// searched its share to the end and found no violation there: it proves
// nothing alone (explore merge of every part gives the verdict).
const PartNoViolation = "part-no-violation"

// VerdictName is the verdict as the outputs name it: the search's, but
// PartNoViolation where a part of a sharded search would say verified.
func VerdictName(r *Report) string {
	if r.Config.Shards > 1 && r.Result.Verdict == sched.Verified {
		return PartNoViolation
	}
	return r.Result.Verdict.String()
}

// ShardName is "i/n" for a part of a sharded search, "" otherwise.
func ShardName(c Config) string {
	if c.Shards <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", c.Shard, c.Shards)
}
