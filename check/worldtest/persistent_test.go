package worldtest_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
// only), t then w runs too and ends in the state w then t ends in. Up to one thing: a host paused at an interrupt's landing runs
// its window's local steps, then its shared step if that can run, as one
// step (interrupt.go); where t's step lets that shared step run, the
// host runs it with its local steps in one order and in a step of its
// own in the other, so the two ends may differ by one step of a host
// paused somewhere along w. (Split into a step of local steps
// and the shared step, the two orders meet: the local steps commute with
// every step, and the shared step could not run before t's.) And w
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
	init := &porFinals{check.NewSystem(prog), map[string]bool{}}
	n := init.NumThreads()
	key := func(s *porFinals) string { return string(s.AppendKey(nil)) }
	step := func(s *porFinals, t int) *porFinals {
		c := s.Clone().(*porFinals)
		c.Step(sched.ThreadID(t))
		return c
	}
	runnable := func(s *porFinals, t int) bool { return s.Status(sched.ThreadID(t)) == sched.Runnable }
	// restTo reports whether one step of a host paused along the
	// execution, from a,
	// ends in b's state: the step of local steps that a paused host
	// takes alone when its shared step cannot run yet, and at once with
	// it when it can
	restTo := func(paused []bool, a *porFinals, b string) bool {
		for h := range prog.NumHosts() {
			if paused[h] && runnable(a, h) && key(step(a, h)) == b {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{key(init): true}
	queue := []*porFinals{init}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		var run []int
		for u := range n {
			if runnable(s, u) {
				run = append(run, u)
				if c := step(s, u); !seen[key(c)] {
					seen[key(c)] = true
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
			var walk func(u *porFinals, w []int) string
			walk = func(u *porFinals, w []int) string {
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
					for _, x := range w {
						if !runnable(b, x) {
							b = nil
							break
						}
						b = step(b, x)
					}
					if b != nil && (key(a) == key(b) || restTo(paused, a, key(b)) || restTo(paused, b, key(a))) {
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
					return fmt.Sprintf("closure %v (seed %s): %s does not commute with %v (%s)", tn, prog.ThreadName(seed),
						names(move), wn, map[bool]string{true: "they end apart", false: "it disables them"}[b != nil])
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
						if msg := walk(next, append(w, x)); msg != "" {
							return msg
						}
					}
				}
				return ""
			}
			if msg := walk(s, nil); msg != "" {
				return msg
			}
		}
	}
	return ""
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
// poll and at a yield: 150,000 to 220,000 states a variant).
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
	progs := map[string]*model.Program{}
	for _, p := range check.Protocols() {
		for flags, sh := range shapes {
			sc, err := sh.Build()
			require.NoError(t, err)
			prog, err := model.NewProgram(sc, p, model.GIL)
			require.NoError(t, err)
			progs[p.Name+" "+flags] = prog
		}
	}
	return progs
}

// TestPersistentSetsWithFaults: every closure POR can take in the worlds
// above is persistent (see persistenceBreak).
func TestPersistentSetsWithFaults(t *testing.T) {
	sequentialOnly(t)
	progs := persistenceWorlds(t, testenv.Long())
	for _, name := range slices.Sorted(maps.Keys(progs)) {
		require.Empty(t, persistenceBreak(progs[name]), name)
	}
}

// TestBrokenPersistenceIsCaught: with the fault rules broken on purpose
// (model.BreakFaultPORForTest), some closure of the default's worlds is
// not persistent.
func TestBrokenPersistenceIsCaught(t *testing.T) {
	sequentialOnly(t)
	defer model.BreakFaultPORForTest()()
	progs := persistenceWorlds(t, false)
	var broken []string
	for _, name := range slices.Sorted(maps.Keys(progs)) {
		if msg := persistenceBreak(progs[name]); msg != "" {
			broken = append(broken, name+": "+msg)
		}
	}
	t.Logf("the broken rules are caught on:\n%s", strings.Join(broken, "\n"))
	require.NotEmpty(t, broken)
}
