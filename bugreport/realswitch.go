package bugreport

import (
	"fmt"
	"strings"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// A trace of -atomicity gil may switch threads where CPython 3.11 cannot
// (a step marked "~": the step before it reached no eval-breaker check,
// and its thread neither blocked nor ended). A report prefers a trace
// 3.11 can run: it searches again under gil-breaker (the same search,
// scenario and bounds; switches only where 3.11 can) and reports that
// trace when it ends in the same violation kind; else it keeps the gil
// trace and says which of its switches 3.11 cannot make, and why.

// realSwitches is what the report says of its trace's switches: the
// report it renders (r, or gil-breaker's), and the sentences that say
// why ("" when the trace had no unreal switch).
type realSwitches struct {
	report *check.Report
	note   string
}

// preferReal looks for a trace without unreal switches when r's has any.
func preferReal(r *check.Report) (realSwitches, error) {
	t, err := check.NewTrace(r, "")
	if err != nil {
		return realSwitches{}, err
	}
	var unreal []check.TraceEntry
	for i, s := range t.Steps {
		if s.UnrealSwitch {
			unreal = append(unreal, t.Steps[i-1], s)
		}
	}
	if len(unreal) == 0 {
		return realSwitches{report: r}, nil
	}
	why := unrealWords(unreal)
	kind := r.Result.Failure.Kind
	if r.Config.Strategy == "replay" {
		return realSwitches{report: r, note: fmt.Sprintf("This replayed trace has %s CPython 3.11 cannot make (marked `~`): %s. A replay searches nothing, so no trace 3.11 can run was looked for: the same search under `-atomicity gil-breaker` (switches only where 3.11 can) looks for one.",
			check.Count(len(unreal)/2, "switch"), why)}, nil
	}
	cfg := r.Config
	cfg.Atomicity, cfg.Corpus, cfg.Progress, cfg.Memory = model.GILBreaker, nil, nil, nil
	again, err := check.Explore(cfg)
	if err != nil {
		return realSwitches{}, err
	}
	if again.Result.Verdict == sched.Violation && again.Result.Failure.Kind == kind {
		first := fmt.Sprintf("The search under atomicity `%s` found", r.Config.Atomicity)
		if r.Corpus != "" {
			first = fmt.Sprintf("The corpus gave, under atomicity `%s`,", r.Config.Atomicity)
		}
		return realSwitches{report: again, note: fmt.Sprintf("%s a trace of %s with %s CPython 3.11 cannot make (%s); the search under `%s` (%s; strategy `%s`, the same scenario and bounds) found this one, of the same kind (`%s`), which 3.11 can run: the trace, the trace.json and the replay below are gil-breaker's.",
			first, check.Count(len(r.Result.Schedule), "step"), check.Count(len(unreal)/2, "switch"), why, model.GILBreaker, model.GILBreaker.Doc(), cfg.Strategy, kind)}, nil
	}
	var found string
	switch res := again.Result; res.Verdict {
	case sched.Verified:
		found = "verified the scenario: no interleaving 3.11 can run fails in it, so this failure needs a switch 3.11 cannot make (a CPython whose switch points differ from 3.11's, or a free-threaded build, may make it)"
	case sched.Violation:
		found = fmt.Sprintf("found a violation of another kind first (`%s`), so whether 3.11 can fail this way is not known", res.Failure.Kind)
	default:
		found = fmt.Sprintf("found no violation (verdict: %s; this proves nothing), so whether 3.11 can fail this way is not known", res.Verdict)
	}
	return realSwitches{report: r, note: fmt.Sprintf("This trace keeps %s CPython 3.11 cannot make (marked `~`): %s. The same search under `%s` (switches only where 3.11 can) %s.",
		check.Count(len(unreal)/2, "switch"), why, model.GILBreaker, found)}, nil
}

// unrealWords says, of each unreal switch (pairs: the step before, the
// switch), why 3.11 cannot make it.
func unrealWords(pairs []check.TraceEntry) string {
	var out []string
	for i := 0; i+1 < len(pairs); i += 2 {
		before, sw := pairs[i], pairs[i+1]
		out = append(out, fmt.Sprintf("at step %d %s takes over from %s, whose step %d (`%s  %s`) reached no eval-breaker check and neither blocked nor ended, so 3.11 would have kept running %s",
			sw.Step, sw.ThreadName, before.ThreadName, before.Step, before.Where, strings.TrimSpace(before.Text), before.ThreadName))
	}
	return strings.Join(out, "; ")
}
