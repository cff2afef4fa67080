package sched_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// POR is checked as DPOR is: against the enumeration of every
// interleaving on random toy programs (the same verdicts; with failures
// hidden, the same failure kinds and end states), and, on toy programs
// with busy-wait loops, whose state graphs have cycles the enumeration
// cannot run, against DFS. Each deliberately broken variant must be
// caught.

func TestPORAgreesWithEnumeration(t *testing.T) {
	gens := append(slices.Clone(generators), struct {
		name string
		gen  *rapid.Generator[*program]
	}{"symmetric", rapid.Custom(genSymProgram)})
	for _, g := range gens {
		t.Run(g.name, func(t *testing.T) {
			var porStates, dfsStates int64
			rapid.Check(t, func(t *rapid.T) {
				p := g.gen.Draw(t, "program")
				build := func() sched.System { return newToy(p) }
				require.Empty(t, dporMismatch(sched.POR{}, build), "program %s", p)
				require.Empty(t, dporMismatch(sched.POR{Workers: 2}, build), "program %s, 2 workers", p)
				cyclic := func() sched.System { return notAcyclic{newToy(p)} }
				require.Empty(t, dporMismatch(sched.POR{}, cyclic), "program %s, with the proviso", p)
				if g.name == "symmetric" {
					sym := func() sched.System { return symToy{newToy(p)} }
					require.Empty(t, dporMismatch(sched.POR{}, sym), "symmetric program %s", p)
					require.Empty(t, dporMismatch(sched.POR{Workers: 2}, sym), "symmetric program %s, 2 workers", p)
				}
				res := sched.POR{}.Run(newToy(p), sched.Limits{})
				if res.Verdict == sched.Violation {
					requireReplays(t, p, "por", res)
				}
				dfs := sched.DFS{}.Run(newToy(p), sched.Limits{})
				if res.Verdict == sched.Verified { // else each stops where it fails
					require.LessOrEqual(t, res.Stats.States, dfs.Stats.States, "program %s", p)
					porStates += res.Stats.States
					dfsStates += dfs.Stats.States
				}
			})
			t.Logf("states: por %d, dfs %d", porStates, dfsStates)
		})
	}
}

func TestPORBlockingAgreesWithEnumeration(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.Custom(genBlockingProgram).Draw(t, "program")
		require.Empty(t, dporMismatch(sched.POR{}, func() sched.System { return newBlocking(p) }), "program %s", p)
	})
}

// opSpin busy-waits: "sR=V" steps without moving on while r[R] != V, a
// step back to the state it left, so that the state graph has a cycle.
const opSpin opKind = 120

// spinSystem is the toy system with busy-waits.
type spinSystem struct{ *toySystem }

func (y spinSystem) Status(t sched.ThreadID) sched.Status {
	if o, ok := y.next(t); ok && o.Kind == opSpin {
		return sched.Runnable
	}
	return y.toySystem.Status(t)
}

func (y spinSystem) Footprint(t sched.ThreadID) sched.Footprint {
	if o, ok := y.next(t); ok && o.Kind == opSpin {
		return sched.Footprint{Object: 1 + o.Reg, Access: sched.Read}
	}
	return y.toySystem.Footprint(t)
}

func (y spinSystem) Step(t sched.ThreadID) *sched.Failure {
	if o, ok := y.next(t); ok && o.Kind == opSpin {
		if *y.reg(o.Reg) == int32(o.V) {
			*y.pc(t)++
		}
		return nil
	}
	return y.toySystem.Step(t)
}

func (y spinSystem) opFootprint(o op) sched.Footprint {
	if o.Kind == opSpin {
		return sched.Footprint{Object: 1 + o.Reg, Access: sched.Read}
	}
	return y.toySystem.opFootprint(o)
}

func (y spinSystem) MayConflict(p, q sched.ThreadID, frozen []bool) bool {
	next := y.Footprint(p)
	return y.future(q, frozen, y.opFootprint, next.Dependent)
}

func (y spinSystem) Clone() sched.System { return spinSystem{y.toySystem.Clone().(*toySystem)} }

// Acyclic implements sched.Futures: a busy-wait steps back to the state
// it left.
func (y spinSystem) Acyclic() bool { return false }

// notAcyclic is a toy system that does not say it is acyclic, so that POR
// searches it on one goroutine with the stack proviso.
type notAcyclic struct{ *toySystem }

func (y notAcyclic) Acyclic() bool       { return false }
func (y notAcyclic) Clone() sched.System { return notAcyclic{y.toySystem.Clone().(*toySystem)} }
func (y notAcyclic) CopyFrom(src sched.System) {
	y.toySystem.CopyFrom(src.(notAcyclic).toySystem)
}

// genSpinProgram is genProgram with busy-waits for values the writes can
// make.
func genSpinProgram(t *rapid.T) *program {
	p := genOps(t, recipe{regs: 2, locks: 1, fewest: 2, most: 3, maxOps: 4, budget: 10, kinds: 10, reads: 2, writes: 5,
		other: func(t *rapid.T, th *threadDraw, k, reg int) op {
			switch {
			case k <= 6:
				return toggleLock(th)
			case k == 7:
				return assertOp(t, reg)
			}
			return op{Kind: opSpin, Reg: reg, V: rapid.IntRange(0, 2).Draw(t, "v")}
		}})
	drawFinalCheck(t, p)
	return p
}

// spinMismatch compares s with DFS on p's spin system, as dporMismatch
// compares with the enumeration, and says how they differ ("" if not).
func spinMismatch(s sched.Strategy, p *program) string {
	build := func() sched.System { return spinSystem{newToy(p)} }
	dfs := sched.DFS{}.Run(build(), sched.Limits{})
	res := s.Run(build(), sched.Limits{})
	if dfs.Verdict != res.Verdict {
		return fmt.Sprintf("verdict %s, dfs %s", res.Verdict, dfs.Verdict)
	}
	dfsRec := newRecorder(build(), true)
	dfs = sched.DFS{}.Run(dfsRec, sched.Limits{})
	rec := newRecorder(build(), true)
	res = s.Run(rec, sched.Limits{})
	switch {
	case dfs.Verdict != res.Verdict:
		return fmt.Sprintf("failures hidden: verdict %s, dfs %s", res.Verdict, dfs.Verdict)
	case dfs.Verdict == sched.Violation: // a deadlock, which ends both
		return ""
	case !slices.Equal(sorted(dfsRec.kinds), sorted(rec.kinds)):
		return fmt.Sprintf("failures hidden: kinds %v, dfs %v", sorted(rec.kinds), sorted(dfsRec.kinds))
	case !slices.Equal(sorted(dfsRec.finals), sorted(rec.finals)):
		return fmt.Sprintf("failures hidden: %d end states, dfs %d", len(rec.finals), len(dfsRec.finals))
	}
	return ""
}

func TestPORCyclesAgreeWithDFS(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.Custom(genSpinProgram).Draw(t, "program")
		require.Empty(t, spinMismatch(sched.POR{}, p), "program %s", p)
	})
}

// The ignoring problem, smallest case: T0 spins on r0, which nobody
// writes, and T1's assert fails. T0 alone is a persistent set; its step
// leads back to the state it left, and only the proviso runs T1.
func TestPORProvisoRunsIgnoredThread(t *testing.T) {
	p := toy("r0", "f1=0")
	p.Threads[0] = []op{{Kind: opSpin, Reg: 0, V: 1}}
	res := sched.POR{}.Run(spinSystem{newToy(p)}, sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	require.Equal(t, kindAssert, res.Failure.Kind)
	res = sched.PORNoProviso.Run(spinSystem{newToy(p)}, sched.Limits{})
	require.Equal(t, sched.Verified, res.Verdict, "the broken search ignores T1")
}

// lyingSpin is a spinSystem that says it is acyclic.
type lyingSpin struct{ spinSystem }

func (y lyingSpin) Acyclic() bool       { return true }
func (y lyingSpin) Clone() sched.System { return lyingSpin{y.spinSystem.Clone().(spinSystem)} }

// Acyclic is what lets POR drop the proviso: told so by a system with a
// cycle, on one worker or two, it ignores T1 as PORNoProviso does. (The
// model's claim is checked by check's TestStateGraphsAreAcyclic.)
func TestPORTrustsAcyclic(t *testing.T) {
	p := toy("r0", "f1=0")
	p.Threads[0] = []op{{Kind: opSpin, Reg: 0, V: 1}}
	for _, workers := range []int{1, 2} {
		res := sched.POR{Workers: workers}.Run(spinSystem{newToy(p)}, sched.Limits{})
		require.Equal(t, sched.Violation, res.Verdict, "%d workers, the system honest", workers)
		res = sched.POR{Workers: workers}.Run(lyingSpin{spinSystem{newToy(p)}}, sched.Limits{})
		require.Equal(t, sched.Verified, res.Verdict, "%d workers: told the graph is acyclic, POR ignores T1", workers)
	}
}

// Each deliberately broken POR misses an outcome on some small program.
func TestBrokenPORCaught(t *testing.T) {
	broken := []struct {
		name string
		s    sched.Strategy
	}{
		{"next steps only", sched.PORNextStepsOnly},
		{"no proviso", sched.PORNoProviso},
	}
	type sample struct {
		name     string
		ops      int
		mismatch func(sched.Strategy) string
	}
	const cases = 150
	var samples []sample
	for _, g := range generators {
		for seed := range cases {
			p := g.gen.Example(seed)
			samples = append(samples, sample{p.String(), ops(p), func(s sched.Strategy) string {
				return dporMismatch(s, func() sched.System { return newToy(p) })
			}})
		}
	}
	for seed := range cases {
		p := rapid.Custom(genBlockingProgram).Example(seed)
		samples = append(samples, sample{p.String(), ops(p.program), func(s sched.Strategy) string {
			return dporMismatch(s, func() sched.System { return newBlocking(p) })
		}})
		sp := rapid.Custom(genSpinProgram).Example(seed)
		samples = append(samples, sample{sp.String(), ops(sp), func(s sched.Strategy) string { return spinMismatch(s, sp) }})
	}
	for _, b := range broken {
		t.Run(b.name, func(t *testing.T) {
			caught, smallest := 0, -1
			for i, c := range samples {
				if m := c.mismatch(b.s); m != "" {
					caught++
					if smallest < 0 || c.ops < samples[smallest].ops {
						smallest = i
						t.Logf("caught on %s: %s", c.name, m)
					}
				}
			}
			require.Positive(t, caught, "%d programs and the broken search agreed with the reference on all", len(samples))
			t.Logf("caught on %d of %d programs", caught, len(samples))
		})
	}
}

// Two threads each take l0 around an increment of r0, a third reads r1:
// POR runs the reader's step once, not between every pair of the others'.
func TestPORReduces(t *testing.T) {
	p := toy("a0 r0 w0+1 u0", "a0 r0 w0+1 u0", "r1 r1")
	dfs := sched.DFS{}.Run(newToy(p), sched.Limits{})
	por := sched.POR{}.Run(newToy(p), sched.Limits{})
	require.Equal(t, sched.Verified, por.Verdict)
	require.True(t, por.Complete)
	require.Less(t, por.Stats.States, dfs.Stats.States)
	t.Logf("dfs %d states, por %d", dfs.Stats.States, por.Stats.States)
}

// Without Futures, POR is States: the same verdict, schedule and counts.
func TestPORWithoutFuturesIsStates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genSymProgram(t)
		st := sched.States{}.Run(noFutures{symToy{newToy(p)}}, sched.Limits{})
		por := sched.POR{}.Run(noFutures{symToy{newToy(p)}}, sched.Limits{})
		require.Equal(t, st.Verdict, por.Verdict)
		require.Equal(t, st.Schedule, por.Schedule)
		require.Equal(t, st.Stats.States, por.Stats.States)
	})
}

// noFutures is a symmetric toy that hides its Futures.
type noFutures struct{ y symToy }

func (n noFutures) NumThreads() int                            { return n.y.NumThreads() }
func (n noFutures) Status(t sched.ThreadID) sched.Status       { return n.y.Status(t) }
func (n noFutures) Footprint(t sched.ThreadID) sched.Footprint { return n.y.Footprint(t) }
func (n noFutures) Step(t sched.ThreadID) *sched.Failure       { return n.y.Step(t) }
func (n noFutures) Final() *sched.Failure                      { return n.y.Final() }
func (n noFutures) Clone() sched.System                        { return noFutures{n.y.Clone().(symToy)} }
func (n noFutures) AppendKey(b []byte) []byte                  { return n.y.AppendKey(b) }
func (n noFutures) AppendCanonicalKey(b []byte) []byte         { return n.y.AppendCanonicalKey(b) }

func (y spinSystem) CopyFrom(src sched.System) { y.toySystem.CopyFrom(src.(spinSystem).toySystem) }
