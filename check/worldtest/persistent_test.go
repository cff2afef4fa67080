package worldtest_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// The persistent sets themselves, checked by running them: at every state
// of a world's unreduced graph, each closure POR can take (one per
// runnable seed, built from MayConflict and AppendEnablers as
// sched.POR builds it) is persistent in Godefroid's sense, as far as
// executions of persistentDepth steps go: for every execution w of
// threads outside the closure T, and every move t of T that can still
// be made after w (a runnable thread's step, or RAISE's arming and a
// thread's fall, which make one transition: an armed state has falls
// only), t then w runs too and ends in the state w then t ends in. Up
// to where a host paused at an interrupt's landing stands in its own
// code: a paused host's step runs its window's local steps, then its
// shared step if that can run, as one step (interrupt.go), and a host's
// step stops at a landing only while a fault can still land
// (reduce_faults.go). So where t's step lets the shared step run, or a
// raise fault in t or w spends the last of the bound, one run of the
// host's code is cut into steps in different places in the two orders:
// the ends may differ by steps of that host alone (which meet), and a
// step of local steps alone in w may be no step of its own after t.
// (Split into a step of local steps and the shared step, the two orders
// meet: the local steps commute with every step, and the shared step
// could not run before t's.) And w
// leaves out RAISE's move that ends it: that move gives up the faults
// left, where no thread is raisable, so an execution with it is one
// without it in which RAISE moves no more (RAISE, alive and not armed,
// changes no other thread's step), and POR reaches those: it takes
// RAISE only where its fall is due, or alone (reduce_faults.go).
//
// The end-state agreements (faultpor_test.go, macro_test.go) say that
// nothing is lost on the worlds they run; this says where a rule is
// wrong, with the state, the closure and the execution that break it.

const persistentDepth = 3

// persistenceBreak finds a closure of prog that is not persistent, or
// returns "".
func persistenceBreak(prog *model.Program) string {
	return persistenceBreakFrom(&porFinals{check.NewSystem(prog), map[string]bool{}, false})
}

// persistenceBreakFrom is persistenceBreak from init, whose steps may be
// critical sections (porFinals.sections).
func persistenceBreakFrom(init *porFinals) string {
	prog := init.World().Program()
	n := init.NumThreads()
	key := func(s *porFinals) string { return string(s.AppendKey(nil)) }
	step := func(s *porFinals, t int) *porFinals {
		c := s.Clone().(*porFinals)
		c.Step(sched.ThreadID(t))
		return c
	}
	runnable := func(s *porFinals, t int) bool { return s.Status(sched.ThreadID(t)) == sched.Runnable }
	// meet reports whether a and b are one state but for how far a host
	// paused along the execution or at either end has run its own code:
	// some steps of the host alone, from a and from b, end in one state.
	// (A paused host's step runs its window's local steps, and its shared
	// step at once when that can run; and a host stops at a landing only
	// while a fault can still land: so one run of its code is cut into
	// steps in different places in the two orders.)
	meet := func(paused []bool, a, b *porFinals) bool {
		run := func(x *porFinals, h int) []string {
			keys := []string{key(x)}
			for range persistentDepth + 1 {
				if !runnable(x, h) {
					break
				}
				x = step(x, h)
				keys = append(keys, key(x))
			}
			return keys
		}
		for h := range prog.NumHosts() {
			if !paused[h] && !a.World().PausedForTest(h) && !b.World().PausedForTest(h) {
				continue
			}
			fromB := run(b, h)
			for _, k := range run(a, h) {
				if slices.Contains(fromB, k) {
					return true
				}
			}
		}
		return false
	}
	// every state met, with the first path from init that reached it
	paths := map[string][]int{key(init): nil}
	queue := []*porFinals{init}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		var run []int
		for u := range n {
			if runnable(s, u) {
				run = append(run, u)
				c := step(s, u)
				if k := key(c); paths[k] == nil {
					paths[k] = append(slices.Clone(paths[key(s)]), u)
					queue = append(queue, c)
				}
			}
		}
		if len(run) < 2 {
			continue
		}
		for _, seed := range run {
			inT := closureOf(s, sched.ThreadID(seed))
			// T's moves: each runnable thread's step, and RAISE's arming
			// with each fall it lets run (one transition: the armed state
			// has falls only, reduce_faults.go)
			var moves [][]int
			for _, t := range run {
				if !inT[t] {
					continue
				}
				c := step(s, t)
				if t != prog.Raiser() || c.Status(sched.ThreadID(t)) == sched.Done {
					moves = append(moves, []int{t})
					continue
				}
				for x := range n {
					if runnable(c, x) {
						moves = append(moves, []int{t, x})
					}
				}
			}
			paused := make([]bool, prog.NumHosts())
			// walk's local[i]: w[i] ran a host's local steps alone (its
			// window stopped at a landing before its shared step)
			var walk func(u *porFinals, w []int, local []bool) string
			walk = func(u *porFinals, w []int, local []bool) string {
				was := slices.Clone(paused)
				defer copy(paused, was)
				for h := range paused {
					paused[h] = paused[h] || u.World().PausedForTest(h)
				}
				for _, move := range moves {
					t := move[0]
					if len(w) == 0 || !runnable(u, t) {
						continue
					}
					a, b := u, s
					for i, x := range move {
						if a != nil && runnable(a, x) {
							a = step(a, x)
						} else {
							a = nil
						}
						if i == 0 && len(move) == 2 && a.Status(sched.ThreadID(t)) == sched.Done {
							a = nil // RAISE ends instead: no fault is left
						}
						b = step(b, x)
					}
					if a == nil {
						continue // not a move u has
					}
					spare := map[int]int{} // each host's steps of local steps alone along w
					for i, x := range w {
						if local[i] {
							spare[x]++
						}
					}
					for _, x := range w {
						if !runnable(b, x) {
							if spare[x] > 0 {
								spare[x]-- // it ran its local steps with its shared step
								continue
							}
							b = nil
							break
						}
						b = step(b, x)
					}
					if b != nil && (key(a) == key(b) || meet(paused, a, b)) {
						continue
					}
					var tn []string
					names := func(ts []int) []string {
						var out []string
						for _, x := range ts {
							out = append(out, prog.ThreadName(x))
						}
						return out
					}
					wn := names(w)
					for q := range n {
						if inT[q] {
							tn = append(tn, prog.ThreadName(q))
						}
					}
					return fmt.Sprintf("closure %v (seed %s): %s does not commute with %v (%s)\n%s then %v:\n%s%v then %s:\n%s", tn, prog.ThreadName(seed),
						names(move), wn, map[bool]string{true: "they end apart", false: "it disables them"}[b != nil],
						names(move), wn, traceOf(s, append(slices.Clone(move), w...)), wn, names(move), traceOf(s, append(slices.Clone(w), move...)))
				}
				if len(w) == persistentDepth {
					return ""
				}
				for x := range n {
					if !inT[x] && runnable(u, x) {
						next := step(u, x)
						if x == prog.Raiser() && next.Status(sched.ThreadID(x)) == sched.Done {
							continue // RAISE gives up its faults: see above
						}
						if msg := walk(next, append(w, x), append(local, localOnly(u, x))); msg != "" {
							return msg
						}
					}
				}
				return ""
			}
			if msg := walk(s, nil, nil); msg != "" {
				var by []string
				for _, u := range paths[key(s)] {
					by = append(by, prog.ThreadName(u))
				}
				return msg + ", at the state the moves " + strings.Join(by, " ") + " reach"
			}
		}
	}
	return ""
}

// localOnly reports whether thread x's step from s runs a host's local
// steps alone: a window that stopped at a landing, whose shared step
// cannot run yet.
func localOnly(s *porFinals, x int) bool {
	return x < s.World().Program().NumHosts() && s.World().Clone().Step(x).LocalStepsForTest()
}

// traceOf is the text of the steps moves take from s, one a line, as far
// as they can run.
func traceOf(s *porFinals, moves []int) string {
	w := s.World().Clone()
	w.Trace = true
	p := w.Program()
	var b strings.Builder
	for _, x := range moves {
		if w.Status(x) != sched.Runnable {
			fmt.Fprintf(&b, "  %s cannot run (%s)\n", p.ThreadName(x), w.Status(x))
			break
		}
		ev := w.Step(x)
		p.Describe(ev)
		fmt.Fprintf(&b, "  %s %s:%d %s | %s %v\n", p.ThreadName(x), ev.Where, ev.Line, ev.Text, ev.Bytecode, ev.Effects)
	}
	return b.String()
}

// closureOf is the closed set T from seed at s, as sched.POR builds it
// (porReducer.closure), with every thread taken in its number's order.
func closureOf(s *porFinals, seed sched.ThreadID) []bool {
	n := s.NumThreads()
	inT := make([]bool, n)
	inT[seed] = true
	work := []sched.ThreadID{seed}
	add := func(q sched.ThreadID) {
		if !inT[q] {
			inT[q] = true
			work = append(work, q)
		}
	}
	for len(work) > 0 {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		switch s.Status(p) {
		case sched.Done:
		case sched.Runnable:
			for q := range sched.ThreadID(n) {
				if !inT[q] && s.Status(q) != sched.Done && s.MayConflict(p, q, inT) {
					add(q)
				}
			}
		default:
			for _, q := range s.AppendEnablers(p, inT, nil) {
				add(q)
			}
		}
	}
	return inT
}

// persistenceWorlds are small worlds with each fault kind, several hosts
// and host calls, every variant, gil; SWAPCHECK_LONG=1 adds two hosts
// with an interrupt (the world that found the rules for a landing in a
// poll and at a yield: 150,000 to 220,000 states a variant) and
// exceptionWorlds.
func persistenceWorlds(t *testing.T, long bool) map[string]*model.Program {
	interrupt := scenario.Faults(0).With(scenario.FaultInterrupt)
	both := interrupt.With(scenario.FaultRaise)
	shapes := map[string]scenario.Shape{
		"-threads 2 -faults interrupt,raise":             {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: both},
		"-threads 1 -host-calls -faults interrupt,raise": {Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true, Faults: both},
		"-threads 1 -calls 0 -hosts 2 -faults interrupt": {Threads: 1, Blocks: 1, Calls: 0, Modules: 1, Names: 1, Hosts: 2, Faults: interrupt},
	}
	if long {
		shapes["-threads 1 -hosts 2 -faults interrupt"] = scenario.Shape{Threads: 1, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2, Faults: interrupt}
	}
	progs := everyVariant(t, shapes, model.GIL)
	if long {
		maps.Copy(progs, exceptionWorlds(t))
	}
	return progs
}

// TestPersistentSetsWithFaults: every closure POR can take in the worlds
// above is persistent (see persistenceBreak). By default every other
// world, by name ("variant flags", sorted: each variant's three shapes in
// turn, so every variant and every shape runs); SWAPCHECK_LONG=1 runs
// them all, and its own worlds.
func TestPersistentSetsWithFaults(t *testing.T) {
	sequentialOnly(t)
	progs := persistenceWorlds(t, testenv.Long())
	for i, name := range slices.Sorted(maps.Keys(progs)) {
		if !testenv.Long() && i%2 == 1 {
			continue
		}
		require.Empty(t, persistenceBreak(progs[name]), name)
	}
}

// TestBrokenPersistenceIsCaught: with the fault rules broken on purpose
// (model.BreakFaultPORForTest), some closure of the default's worlds is
// not persistent.
func TestBrokenPersistenceIsCaught(t *testing.T) {
	sequentialOnly(t)
	defer model.BreakFaultPORForTest()()
	broken := brokenClosures(persistenceWorlds(t, false))
	t.Logf("the broken rules are caught on:\n%s", strings.Join(broken, "\n"))
	require.NotEmpty(t, broken)
}

// brokenClosures is persistenceBreak's finding on each of progs that has
// one, named.
func brokenClosures(progs map[string]*model.Program) []string {
	var broken []string
	for _, name := range slices.Sorted(maps.Keys(progs)) {
		if msg := persistenceBreak(progs[name]); msg != "" {
			broken = append(broken, name+": "+msg)
		}
	}
	return broken
}

// TestKeptCutsAreCaught: with the cuts of a thread that may raise kept
// past its exceptions (model.KeepCutsPastRaisesForTest), a closure of
// exceptionWorlds is not persistent. (That they all are with the cuts
// given up is SWAPCHECK_LONG's: 20 s.)
func TestKeptCutsAreCaught(t *testing.T) {
	sequentialOnly(t)
	defer model.KeepCutsPastRaisesForTest()()
	broken := brokenClosures(exceptionWorlds(t))
	t.Logf("the kept cuts are caught on:\n%s", strings.Join(broken, "\n"))
	require.NotEmpty(t, broken)
}

// TestPersistentSetsOnRandomScenarios: every closure POR can take is
// persistent (persistenceBreak) on random small scenarios
// (drawFaultWorld's, those whose unreduced search ends within 3,000
// executions). Only under SWAPCHECK_LONG: 100 checks take
// about a minute.
func TestPersistentSetsOnRandomScenarios(t *testing.T) {
	if !testenv.Long() {
		t.Skip("SWAPCHECK_LONG=1 runs it (about a minute)")
	}
	sequentialOnly(t)
	rapid.Check(t, func(rt *rapid.T) {
		sc, p, a := drawFaultWorld(rt)
		prog, err := model.NewProgram(sc, p, a)
		if err != nil {
			rt.Skipf("not a program: %v", err)
		}
		if _, complete := boundedEndStates(prog, sched.States{}, sched.Limits{MaxExecutions: 3000}); !complete {
			rt.Skip("the unreduced search outran 3,000 executions")
		}
		if msg := persistenceBreak(prog); msg != "" {
			rt.Fatalf("%s %s: %s\n%s", p.Name, a, msg, sc)
		}
	})
}
