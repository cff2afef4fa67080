package check

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// MergeSummaries combines the summaries of the shards of one search (one
// summary.json per shard, any order) into one verdict: a violation if any
// shard found one (the lowest shard's is reported), verified if every shard
// of 0..n-1 is there and verified, otherwise incomplete, saying what is
// missing. Counts are summed: shards overlap, so they measure the work
// done, not distinct states. Preemptions combine over all the shards'
// executions (the fewest, the most, the mean weighted by executions);
// MemoryBytes and PeakRSSBytes are the largest shard's (each ran alone).
func MergeSummaries(parts []Summary) (Summary, error) {
	if len(parts) == 0 {
		return Summary{}, fmt.Errorf("nothing to merge")
	}
	first := parts[0]
	n := -1
	seen := map[int]Summary{}
	for _, p := range parts {
		i, total, err := ParseShard(p.Shard)
		if err != nil {
			return Summary{}, fmt.Errorf("%w (was the summary written with -shard?)", err)
		}
		if n < 0 {
			n = total
		}
		switch {
		case total != n:
			return Summary{}, fmt.Errorf("shard %s is one of %d, but shard %s is one of %d", p.Shard, total, first.Shard, n)
		case p.Version != first.Version:
			return Summary{}, fmt.Errorf("shard %s was written by explore %s, but shard %s by explore %s: run every part with one version", p.Shard, cmp.Or(versionText(p.Version), "(unversioned)"), first.Shard, cmp.Or(versionText(first.Version), "(unversioned)"))
		case p.Protocol != first.Protocol || p.Atomicity != first.Atomicity || p.Scenario != first.Scenario || p.Strategy != first.Strategy:
			return Summary{}, fmt.Errorf("shard %s searched another protocol, atomicity, strategy or scenario than shard %s", p.Shard, first.Shard)
		case p.Violations != first.Violations:
			return Summary{}, fmt.Errorf("shard %s looked for %s violations, but shard %s for %s: run every part with the same -after-failure", p.Shard, cmp.Or(p.Violations, "all"), first.Shard, cmp.Or(first.Violations, "all"))
		}
		if _, dup := seen[i]; dup {
			return Summary{}, fmt.Errorf("shard %d/%d given twice", i, n)
		}
		seen[i] = p
	}
	out := Summary{Version: first.Version, Format: FormatVersion, Protocol: first.Protocol, Atomicity: first.Atomicity, Strategy: first.Strategy,
		Violations: first.Violations, Scenario: first.Scenario, Shard: fmt.Sprintf("merged %d of %d", len(seen), n), Complete: true}
	var stopped []string
	verdict := "verified"
	var preempted int64     // executions of the shards that report preemptions
	var preemptions float64 // their preemptions in all
	// In shard order, over the parts given: n comes from the files and
	// may be far more than were run.
	for _, i := range slices.Sorted(maps.Keys(seen)) {
		p := seen[i]
		out.Executions += p.Executions
		out.States += p.States
		out.Steps += p.Steps
		out.Matched += p.Matched
		out.MemoryBytes = max(out.MemoryBytes, p.MemoryBytes)
		out.ElapsedMS = max(out.ElapsedMS, p.ElapsedMS)
		out.LocksLeft = max(out.LocksLeft, p.LocksLeft)
		out.FaultedExecutions += p.FaultedExecutions
		if d := p.MaxDepth; d != nil && (out.MaxDepth == nil || *d > *out.MaxDepth) {
			out.MaxDepth = new(*d) // the longest of the parts that measured it
		}
		out.PeakRSSBytes = max(out.PeakRSSBytes, p.PeakRSSBytes)
		out.AfterFailureSteps += p.AfterFailureSteps
		for _, k := range p.AfterFailureKinds {
			if !slices.Contains(out.AfterFailureKinds, k) {
				out.AfterFailureKinds = append(out.AfterFailureKinds, k)
			}
		}
		if q := p.Preemptions; q != nil && p.Executions > 0 {
			if out.Preemptions == nil {
				out.Preemptions = &PreemptionStats{Min: q.Min, Max: q.Max}
			}
			out.Preemptions.Min = min(out.Preemptions.Min, q.Min)
			out.Preemptions.Max = max(out.Preemptions.Max, q.Max)
			out.Preemptions.ByTiming = out.Preemptions.ByTiming || q.ByTiming
			preempted += p.Executions
			preemptions += q.Mean * float64(p.Executions)
		}
		switch p.Verdict {
		case "violation":
			if out.Violation == nil {
				out.Violation, out.ViolationShard = p.Violation, p.Shard
			}
			verdict = "violation"
		case PartNoViolation, "verified": // "verified": a part of explore before part-no-violation
			out.Complete = out.Complete && (p.ShareComplete || p.Complete)
			continue
		default:
			if verdict != "violation" {
				verdict = "incomplete"
			}
			stopped = append(stopped, strings.TrimSpace(fmt.Sprintf("shard %d: %s %s", i, p.Verdict, p.Stopped)))
		}
		out.Complete = out.Complete && p.Complete
	}
	missing := n - len(seen)
	if missing > 0 && verdict != "violation" {
		verdict = "incomplete"
		stopped = append(stopped, "missing shards: "+missingShards(seen, n))
	}
	out.Stopped = strings.Join(stopped, "; ")
	out.Complete = out.Complete && missing == 0 && verdict == "verified"
	out.Verdict = verdict
	slices.SortFunc(out.AfterFailureKinds, func(a, b string) int { return cmp.Compare(slices.Index(Kinds, a), slices.Index(Kinds, b)) })
	if out.Preemptions != nil {
		out.Preemptions.Mean = preemptions / float64(preempted)
	}
	if out.ElapsedMS > 0 {
		out.StepsPerSec = float64(out.Steps) / (out.ElapsedMS / 1000)
	}
	return out, nil
}

// missingShards lists the shards of 0..n-1 not in seen: the first few, and
// how many in all when there are more (n comes from the files and may be
// huge).
func missingShards(seen map[int]Summary, n int) string {
	const listed = 8
	var names []string
	for i := 0; i < n && len(names) < listed; i++ {
		if _, ok := seen[i]; !ok {
			names = append(names, strconv.Itoa(i))
		}
	}
	if all := n - len(seen); all > listed {
		names = append(names, fmt.Sprintf("... (%d in all)", all))
	}
	return strings.Join(names, ", ")
}

// ParseShard reads "i/n" (0 <= i < n).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("shard %q is not of the form i/n with 0 <= i < n", s)
	}
	return i, n, nil
}
