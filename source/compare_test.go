package source_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
	"swapcheck/variants"
)

// outcome is what the searches of one world say: the verdict of the
// search a user gets, its kind, and every kind reachable.
type outcome struct {
	Verdict sched.Verdict // Verified or Violation
	// First is the kind of the verdict's counterexample: for a listing,
	// check.Explore's (dfs, then the shortest counterexample); for
	// source, the first sched.States meets. "" when verified.
	First string
	// Kinds is every violation kind reachable (a complete search of the
	// world under reaching), sorted; nil when it was not computed (a
	// heavy cell, see heavyCells).
	Kinds []string
	// States is the verified search's distinct states (0 for a violation).
	States int64
	// build makes the world afresh, for an aimed search.
	build func() sched.System
}

// listingWorld is the checked world of a listing (what check's searches
// run: check.NewSystem).
func listingWorld(t testing.TB, v variants.Variant, sc *scenario.Scenario, a model.Atomicity) func() sched.System {
	t.Helper()
	p, err := model.NewProgram(sc, v.Protocol, a)
	require.NoError(t, err)
	return func() sched.System { return check.NewSystem(p) }
}

// listingOutcome is the listing's outcome: its verdict is check.Explore's
// exhaustive search (dfs, as docs/verdicts.md's table), its kinds a
// complete search of check.NewSystem under reaching.
func listingOutcome(t testing.TB, v variants.Variant, sc *scenario.Scenario, a model.Atomicity, full bool) outcome {
	t.Helper()
	rep, err := check.Explore(check.Config{Protocol: v.Protocol, Scenario: sc, Atomicity: a, Strategy: check.StrategyDFS})
	require.NoError(t, err)
	res := rep.Result
	require.Contains(t, []sched.Verdict{sched.Verified, sched.Violation}, res.Verdict, "the listing's search of %s is %s", v.Protocol.Name, res.Verdict)
	o := outcome{Verdict: res.Verdict, build: listingWorld(t, v, sc, a)}
	if res.Failure != nil {
		o.First = res.Failure.Kind
	} else {
		o.States = res.Stats.States
	}
	if full {
		o.Kinds = reachable(t, o.build())
	}
	return o
}

// sourceOutcome is the source's outcome: its verdict is sched.States on
// source.New, the search explore -source runs; its kinds a complete
// search under reaching. Where no kind is reachable the reaching search
// is that verdict's search: with no failure the wrapper changes nothing
// (the same states, keyed the same), so it is not run twice.
func sourceOutcome(t testing.TB, p *source.Program, full bool) outcome {
	t.Helper()
	o := outcome{build: func() sched.System { return source.New(p) }}
	if full {
		var states int64
		o.Kinds, states = reachableStates(t, o.build())
		if len(o.Kinds) == 0 {
			o.Verdict, o.States = sched.Verified, states
			return hangOutcome(t, p, o)
		}
	}
	res := sched.States{}.Run(o.build(), sched.Limits{})
	require.Contains(t, []sched.Verdict{sched.Verified, sched.Violation}, res.Verdict, "the source's search is %s", res.Verdict)
	o.Verdict = res.Verdict
	if res.Failure != nil {
		o.First = res.Failure.Kind
	} else {
		o.States = res.Stats.States
	}
	// a heavy cell's comparison is the verdicts and the first kinds: no
	// hang check there (for CI's budget: the two-host worlds'; their
	// hang is TestMergedFixWaitsFromSource's)
	return o
}

// hangOutcome is o, verified, checked by sched.Hang when the file has a
// loop that can come back to a state (as explore -source checks it), for
// the complete comparisons: a
// listing's wait is a guard that blocks, so where it waits for good the
// listing deadlocks and the file hangs, and the comparison must see it.
func hangOutcome(t testing.TB, p *source.Program, o outcome) outcome {
	if o.Verdict != sched.Verified || !p.MayLoop() {
		return o
	}
	res := sched.Hang(source.New(p), sched.Limits{})
	require.NotEqual(t, sched.Incomplete, res.Verdict)
	if res.Verdict == sched.Violation {
		o.Verdict, o.First, o.Kinds, o.States = sched.Violation, res.Failure.Kind, []string{res.Failure.Kind}, 0
	}
	return o
}

// reachable is every violation kind reachable in s, sorted.
func reachable(t testing.TB, s sched.System) []string {
	t.Helper()
	kinds, _ := reachableStates(t, s)
	return kinds
}

func reachableStates(t testing.TB, s sched.System) ([]string, int64) {
	t.Helper()
	r := sched.NewReaching(s)
	res := sched.States{}.Run(r, sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict, "the search for every reachable kind did not finish: %s %v", res.Verdict, res.Failure)
	return r.Kinds(), res.Stats.States
}

// reaches reports whether kind is reachable in s: a search that stops
// at the first failure of that kind, and is complete otherwise.
func reaches(t testing.TB, s sched.System, kind string) bool {
	t.Helper()
	res := sched.States{}.Run(sched.NewAiming(s, kind), sched.Limits{})
	require.Contains(t, []sched.Verdict{sched.Verified, sched.Violation}, res.Verdict, "the search for %s did not finish", kind)
	return res.Verdict == sched.Violation
}

// disagreements is what a listing's and a source's outcomes of one world
// disagree on, one line each (none: they agree): the verdict; the kinds
// reachable in each; and, where the kinds were not computed, whether each
// side's kind is reachable in the other. Each outcome's own kind must be
// among its reachable kinds (a check of reaching itself).
func disagreements(t testing.TB, listing, src outcome) []string {
	t.Helper()
	var out []string
	if listing.Verdict != src.Verdict {
		out = append(out, fmt.Sprintf("verdict: listing %s, source %s", listing.Verdict, src.Verdict))
	}
	for _, o := range []struct {
		name string
		o    outcome
	}{{"listing", listing}, {"source", src}} {
		if o.o.Kinds != nil && o.o.First != "" {
			require.Contains(t, o.o.Kinds, o.o.First, "the %s's search met %s, which the search for every reachable kind did not", o.name, o.o.First)
		}
	}
	switch {
	case listing.Kinds != nil && src.Kinds != nil:
		if !slices.Equal(listing.Kinds, src.Kinds) {
			out = append(out, fmt.Sprintf("reachable kinds: listing %v, source %v", listing.Kinds, src.Kinds))
		}
	default:
		if listing.First != "" && !reaches(t, src.build(), listing.First) {
			out = append(out, fmt.Sprintf("the listing's kind %s is not reachable from source", listing.First))
		}
		if src.First != "" && !reaches(t, listing.build(), src.First) {
			out = append(out, fmt.Sprintf("the source's kind %s is not reachable in the listing", src.First))
		}
	}
	return out
}

// listingCache keeps each listing's outcome, which every CPython version
// compares against: by variant, world and mode.
var listingCache = struct {
	sync.Mutex
	m map[string]outcome
}{m: map[string]outcome{}}

func cachedListing(t testing.TB, v variants.Variant, world string, sc *scenario.Scenario, a model.Atomicity, full bool) outcome {
	t.Helper()
	key := fmt.Sprintf("%s|%s|%s|%v", v.Protocol.Name, world, a, full)
	listingCache.Lock()
	o, ok := listingCache.m[key]
	listingCache.Unlock()
	if ok {
		return o
	}
	o = listingOutcome(t, v, sc, a, full)
	listingCache.Lock()
	listingCache.m[key] = o
	listingCache.Unlock()
	return o
}

// logOutcomes logs what two agreeing outcomes say: the state counts of a
// verified world, the kinds of a violated one.
func logOutcomes(t testing.TB, listing, src outcome) {
	t.Helper()
	switch {
	case listing.Verdict == sched.Verified:
		t.Logf("verified: listing %d states, source %d", listing.States, src.States)
	case src.Kinds == nil:
		t.Logf("violation (heavy cell: every reachable kind not compared); first met: listing %s, source %s", listing.First, src.First)
	default:
		t.Logf("violation: kinds %v; first met: listing %s, source %s", src.Kinds, listing.First, src.First)
	}
}
