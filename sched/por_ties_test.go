package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// POR with CanonicalTies is checked as POR is, on symmetric toy programs
// whose canonical order and ties the toy gives (tiedToy): the same
// verdicts, failure kinds and end states as the enumeration, on one
// worker and two. A toy that calls threads tied that are not
// (lyingTies) must be caught.

// tiedToy is a symmetric toy that lists its threads in the canonical
// key's order and says which of them tie: neighbours at the same pc with
// the same local that hold no lock, whose swap leaves the state as it is.
type tiedToy struct{ symToy }

func (y tiedToy) Clone() sched.System { return tiedToy{y.symToy.Clone().(symToy)} }

func (y tiedToy) CopyFrom(src sched.System) { y.symToy.CopyFrom(src.(tiedToy).symToy) }

// AppendCanonicalOrder implements sched.CanonicalOrderer: the order
// symToy's key sorts the threads in.
func (y tiedToy) AppendCanonicalOrder(buf []sched.ThreadID) []sched.ThreadID {
	return y.order(buf, y.firstHeld())
}

// AppendCanonicalTies implements sched.CanonicalTies.
func (y tiedToy) AppendCanonicalTies(order []sched.ThreadID, buf []bool) []bool {
	held := y.firstHeld()
	for i, t := range order {
		tied := false
		if i > 0 {
			u := order[i-1]
			tied = *y.pc(t) == *y.pc(u) && *y.local(t) == *y.local(u) && held[t] == 0 && held[u] == 0
		}
		buf = append(buf, tied)
	}
	return buf
}

func TestPORWithTiesAgreesWithEnumeration(t *testing.T) {
	var tiedStates, plainStates int64
	rapid.Check(t, func(t *rapid.T) {
		p := genSymProgram(t)
		tied := func() sched.System { return tiedToy{symToy{newToy(p)}} }
		require.Empty(t, dporMismatch(sched.POR{}, tied), "program %s", p)
		require.Empty(t, dporMismatch(sched.POR{Workers: 2}, tied), "program %s, 2 workers", p)
		res := sched.POR{}.Run(tied(), sched.Limits{})
		if res.Verdict == sched.Violation {
			requireReplays(t, p, "por", res)
		}
		plain := sched.POR{}.Run(symToy{newToy(p)}, sched.Limits{})
		require.Equal(t, plain.Verdict, res.Verdict, "program %s", p)
		if res.Verdict == sched.Verified {
			tiedStates += res.Stats.States
			plainStates += plain.Stats.States
		}
	})
	t.Logf("states of the verified programs: with ties %d, without %d", tiedStates, plainStates)
}

// A toy that says its threads tie where they do not makes POR skip
// closures and answers it must not: some small program shows it.
// lyingTies says so of every two threads of any toy program (in their
// numbers' order, no canonical key).
func TestBrokenTiesCaught(t *testing.T) {
	caught, tried := 0, 0
	const cases = 150
	for _, g := range generators {
		for seed := range cases {
			p := g.gen.Example(seed)
			tried++
			if m := dporMismatch(sched.POR{}, func() sched.System { return lyingTies{newToy(p)} }); m != "" {
				if caught == 0 {
					t.Logf("caught on %s: %s", p, m)
				}
				caught++
			}
		}
	}
	require.Positive(t, caught, "%d programs and POR with every neighbour tied agreed with the enumeration on all", tried)
	t.Logf("caught on %d of %d programs", caught, tried)
}

// lyingTies is a toy whose threads are all said to tie.
type lyingTies struct{ *toySystem }

func (y lyingTies) Clone() sched.System { return lyingTies{y.toySystem.Clone().(*toySystem)} }

func (y lyingTies) CopyFrom(src sched.System) { y.toySystem.CopyFrom(src.(lyingTies).toySystem) }

func (y lyingTies) AppendCanonicalOrder(buf []sched.ThreadID) []sched.ThreadID {
	for t := range sched.ThreadID(len(y.p.Threads)) {
		buf = append(buf, t)
	}
	return buf
}

func (y lyingTies) AppendCanonicalTies(order []sched.ThreadID, buf []bool) []bool {
	for i := range order {
		buf = append(buf, i > 0)
	}
	return buf
}

var (
	_ sched.CanonicalTies = tiedToy{}
	_ sched.CanonicalTies = lyingTies{}
)

// twinToy is tiedToy that lets POR make one child of a run of tied
// threads (sched.TiedChildren).
type twinToy struct{ tiedToy }

func (y twinToy) Clone() sched.System { return twinToy{y.tiedToy.Clone().(tiedToy)} }

func (y twinToy) CopyFrom(src sched.System) { y.tiedToy.CopyFrom(src.(twinToy).tiedToy) }

func (twinToy) SkipTiedChildren() bool { return true }

// TestPORWithTiedChildrenAgreesWithEnumeration: making one child of a
// run of tied threads keeps the verdicts, kinds and end states, on one
// worker and two, and reaches the same states as making them all.
func TestPORWithTiedChildrenAgreesWithEnumeration(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genSymProgram(t)
		twin := func() sched.System { return twinToy{tiedToy{symToy{newToy(p)}}} }
		require.Empty(t, dporMismatch(sched.POR{}, twin), "program %s", p)
		require.Empty(t, dporMismatch(sched.POR{Workers: 2}, twin), "program %s, 2 workers", p)
		res := sched.POR{}.Run(twin(), sched.Limits{})
		all := sched.POR{}.Run(tiedToy{symToy{newToy(p)}}, sched.Limits{})
		require.Equal(t, all.Verdict, res.Verdict, "program %s", p)
		if res.Verdict == sched.Verified {
			require.Equal(t, all.Stats.States, res.Stats.States, "program %s: the states reached", p)
			require.LessOrEqual(t, res.Stats.Steps, all.Stats.Steps, "program %s", p)
		}
	})
}

// lyingTwins says every two threads tie and skips their children: some
// small program shows it.
type lyingTwins struct{ lyingTies }

func (y lyingTwins) Clone() sched.System { return lyingTwins{y.lyingTies.Clone().(lyingTies)} }

func (y lyingTwins) CopyFrom(src sched.System) { y.lyingTies.CopyFrom(src.(lyingTwins).lyingTies) }

func (lyingTwins) SkipTiedChildren() bool { return true }

func TestBrokenTiedChildrenCaught(t *testing.T) {
	caught, tried := 0, 0
	for _, g := range generators {
		for seed := range 150 {
			p := g.gen.Example(seed)
			tried++
			if dporMismatch(sched.POR{}, func() sched.System { return lyingTwins{lyingTies{newToy(p)}} }) != "" {
				caught++
			}
		}
	}
	require.Positive(t, caught, "%d programs and POR making one child of every thread agreed with the enumeration on all", tried)
	t.Logf("caught on %d of %d programs", caught, tried)
}

var (
	_ sched.TiedChildren = twinToy{}
	_ sched.TiedChildren = lyingTwins{}
)
