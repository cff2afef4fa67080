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
