package sched

import (
	"fmt"
	"slices"
)

// POR is the states search (a visited set keyed up to symmetry where the
// system is Canonical) with a stateful partial-order reduction: at each
// state it runs only the threads of a persistent set, worked out from what
// the system says of its threads' futures (Futures), and, on a system
// that is not Acyclic, every runnable thread where the stack proviso asks
// for it. A system that does not implement Futures gets no reduction: POR
// is then States, counts included.
//
// # The persistent set
//
// From one runnable seed thread, a set T of threads is closed under two
// rules (Godefroid's stubborn-set construction of persistent sets, PhD
// thesis, LNCS 1032, algorithm 4.2, with threads for transitions):
//
//   - a thread p of T whose next step can run: every thread q that may,
//     while the threads of T take no step, come to a step dependent with
//     p's next step (Futures.MayConflict) joins T;
//   - a thread of T whose next step is blocked: its necessary enabling
//     set (Futures.Enablers), threads one of which steps in every
//     execution that unblocks it without a step of T, joins T.
//
// Every seed is tried (in the state's canonical order, see "Several
// workers") and the closure with the fewest runnable threads is kept. Its
// runnable threads are a persistent set: in any execution from the state
// made of steps of other threads only, every step is independent of every
// next step of T, and none enables a blocked step of T (by the two rules,
// by induction along the execution). Hence any execution from the state that ends in a
// failing step, a failing end state or a deadlock is, by swapping
// independent adjacent steps, equivalent to one that begins with a step of
// T; equivalent executions end in the same state and fail alike (a step's
// failure depends only on what its footprint names and its thread's own
// state), so the reduced graph still reaches every failure, and every end
// state (Godefroid, theorem 4.3 and its corollaries; Final is a property of
// end states).
//
// # The visited set, symmetry, and the proviso
//
// Searched with a visited set, persistent sets alone can lose states
// through the ignoring problem: a cycle on which some thread never runs,
// closed by a match, postpones that thread for ever. A match up to
// symmetry closes a cycle of orbits just as well: a state whose renaming
// is on the stack. But a cycle of orbits is a cycle of states: if s
// reaches π(s), then π(s) reaches π²(s), and so on to π^k(s) = s, π
// being an automorphism of the state graph of finite order k. So a
// system that is Acyclic (the model's worlds are: every step moves its
// thread on through code that runs once) has neither, and needs no
// proviso. For it POR is Parallel's depth-first search on a shared
// visited set, each state's children cut down to its persistent set's.
// Soundness, by induction on the length of the longest path from a state
// (finite, the graph being acyclic and finite): let an execution w from
// an expanded state s end in a failure, T the persistent set taken at s.
// If w has a step of T, the first such step can be moved to the front of
// w (each step before it is another thread's, independent of it), so a
// child of s by T, whose longest path is shorter, reaches a failure. If w
// has none, every thread of T stays runnable along w with its next step
// independent of w's (T is persistent), so w does not end in a deadlock
// or an end state, and its failing step fails after a step of T as well:
// again a child by T reaches a failure. That child, or a state of its
// orbit (which reaches the failure's image), is expanded by whoever
// stored it first, and by induction its search finds a failure. Nothing
// of this depends on the order in which states are expanded, so it holds
// for any number of workers.
//
// Systems that are not Acyclic are searched on one goroutine with the
// stack proviso (Peled's C3, as SPIN does it): a state one of whose
// reduced children's keys is the key of a state on the depth-first stack
// is expanded fully. Keys are canonical keys, so the proviso sees cycles
// of orbits, and the cycles of real states among them.
//
// Symmetry and partial order are combined as Emerson, Jha and Peled
// ("Combining partial order and symmetry reductions", TACAS 1997) require:
// the persistent set is computed on the real state the search stands on,
// never on a representative of its orbit, and the symmetry reduction is
// used only to match. A state s is skipped only when a state r with the
// same canonical key, r = π(s) for a permutation π of interchangeable
// threads, was reached before; every failure reachable from s is π⁻¹ of a
// failure reachable from r (π is an automorphism of the state graph and
// of its failures), so the question is only whether r's reduced search
// reaches one, which the induction above answers (or, with the proviso,
// the induction over the depth-first order: r's search either finished,
// or r is on the stack, and then s's parent was expanded fully). The
// search moves through real states, so a counterexample's schedule
// really runs.
//
// # Several workers
//
// Which state of an orbit is expanded depends, on several workers, on
// which reaches it first. The persistent set taken at a state is made a
// function of the state alone (not of the path to it), and the same, up
// to the permutation, at every state of its orbit, by taking threads in
// the state's canonical order (CanonicalOrderer; see porReducer.ample):
// the reduced graph's orbits are then one set however the workers race,
// and so are the counts. A Canonical system without a canonical order
// gets counts that can differ between runs (Stats.CountsByTiming).
//
// The tests that guard this: TestPORAgreesWithEnumeration (random toy
// programs against the enumeration of every interleaving, on one worker,
// on two, and with the proviso), the cyclic toy programs against DFS,
// TestBrokenPORCaught (each deliberately broken variant is caught),
// TestPORTrustsAcyclic (a cycle said not to be one is missed), and
// check's every-variant and every-scenario comparisons with states, its
// check that every scenario's graph is acyclic, and that the counts do
// not depend on the workers.
type POR struct {
	// Workers: goroutines to search on, for a system that is Acyclic
	// (one, otherwise); see "Several workers".
	Workers int
	// fault breaks the search on purpose, for tests that must see a
	// broken reduction caught (see por_export_test.go). Zero: none.
	fault porFault
}

// porFault is a deliberate bug, for tests only.
type porFault uint8

const (
	porSound porFault = iota
	// porNextStepsOnly judges conflicts by the threads' next steps
	// alone, as if no thread had a future.
	porNextStepsOnly
	// porNoProviso drops the stack proviso.
	porNoProviso
)

// Name implements Strategy.
func (POR) Name() string { return "por" }

// Exhaustive implements Strategy.
func (POR) Exhaustive() bool { return true }

// porRun is one run of POR on one goroutine.
type porRun struct {
	red porReducer
	// proviso: the stack proviso is needed (the system has futures, and
	// is not Acyclic)
	proviso  bool
	key      func(System, []byte) []byte
	set      *setUser
	stack    map[string]int // the keys of the states on the stack (proviso)
	stats    Stats
	stop     stopper
	maxDepth int
	maxExec  int64
	path     []ThreadID
	// states recycles the children once searched (Copier)
	states pool
}

// Run implements Strategy.
func (p POR) Run(init System, lim Limits) Result {
	if f, ok := init.(Futures); ok && f.Acyclic() {
		return p.parallel(init, lim)
	}
	x := &porRun{red: newPORReducer(p.fault, init), key: keyOf, maxDepth: lim.maxDepth(), maxExec: lim.MaxExecutions}
	if _, ok := init.(Canonical); ok {
		x.key = canonicalKeyOf
	}
	x.proviso = x.red.futures && p.fault != porNoProviso // the system is not Acyclic
	if x.proviso {
		x.stack = map[string]int{}
	}
	n := init.NumThreads()
	vs := newSearchSet(1, lim)
	x.set = vs.join()
	defer vs.free()
	// A step also works out a persistent set, a closure over the threads
	// whose cost grows with their number: each counts that many more
	// towards the next poll of Limits.Stop.
	x.stop = newStopper(lim, &x.stats)
	x.stop.weight = stepWeight(init) + n
	var res Result
	start := init.Clone()
	k := x.key(start, nil)
	x.set.add(k)
	x.stats.States = 1
	end := x.expand(start, string(k), -1, 0)
	res.Stats = x.stats
	res.Stats.MemoryBytes = vs.bytes()
	switch {
	case end.failure != nil:
		res.Verdict, res.Failure, res.Schedule = Violation, end.failure, end.path
		res.Stats.execution(end.preempts)
	case end.cut != "":
		res.Verdict, res.Cut = Incomplete, end.cut
	default:
		res.Verdict, res.Complete = Verified, true
	}
	return res
}

// parallel is Run for an acyclic system with futures, on p.Workers
// goroutines (at least one): Parallel's search, each state's children cut
// down to a persistent set's (see POR).
func (p POR) parallel(init System, lim Limits) Result {
	fault := p.fault
	workers := max(p.Workers, 1)
	res := Parallel{Workers: workers, Symmetry: true}.run(init, lim, func() *porReducer {
		r := newPORReducer(fault, init)
		return &r
	})
	_, canonical := init.(Canonical)
	_, ordered := init.(CanonicalOrderer)
	res.Stats.CountsByTiming = workers > 1 && canonical && !ordered
	return res
}

// porKid is a child of a state being expanded.
type porKid struct {
	s    System
	key  []byte
	fail *Failure
}

// expand searches from s, new, whose key is key, reached by via's step
// (-1: the initial state) after x.path, with pre preemptions.
func (x *porRun) expand(s System, key string, via ThreadID, pre int) dfsEnd {
	enabled, allDone := runnable(s, nil)
	if len(enabled) == 0 {
		if f := terminal(s, allDone); f != nil {
			return dfsEnd{failure: f, path: append([]ThreadID{}, x.path...), preempts: pre}
		}
		x.stats.execution(pre)
		return dfsEnd{}
	}
	if len(x.path) >= x.maxDepth {
		return dfsEnd{cut: fmt.Sprintf("an execution reached the step budget of %d", x.maxDepth)}
	}
	x.stats.Depth = max(x.stats.Depth, len(x.path)+1)
	order := preferring(nil, enabled, via)
	amp := slices.Clone(x.red.ample(s, order)) // the scratch is reused below
	if x.proviso {
		x.stack[key]++
		defer func() {
			if x.stack[key]--; x.stack[key] == 0 {
				delete(x.stack, key)
			}
		}()
	}
	// The reduced set's children are made first, for the proviso to see
	// their keys; the others, when every thread runs, in their turn, so
	// that a search that reduces nothing tries them in States' order.
	kids := make([]porKid, len(order))
	reduced := false
	for _, t := range order {
		reduced = reduced || !amp[t]
	}
	if reduced && x.proviso {
		for i, t := range order {
			if amp[t] {
				kids[i] = x.child(s, t)
			}
		}
		if x.onStack(kids) {
			for _, t := range order {
				amp[t] = true
			}
		}
	}
	for i, t := range order {
		if !amp[t] {
			continue
		}
		if x.stop.stopped() {
			return dfsEnd{cut: "stopped"}
		}
		if x.maxExec > 0 && x.stats.Executions >= x.maxExec {
			return dfsEnd{cut: maxExecutionsCut(x.maxExec)}
		}
		kp := pre
		if preempts(enabled, via, t) {
			kp++
		}
		kid := kids[i]
		kids[i] = porKid{}
		if kid.s == nil {
			kid = x.child(s, t)
		}
		if kid.fail != nil {
			return dfsEnd{failure: kid.fail, path: append(append([]ThreadID{}, x.path...), t), preempts: kp}
		}
		if !x.set.add(kid.key) {
			x.stats.Matched++
			x.stats.execution(kp)
			x.states.put(kid.s)
			continue
		}
		x.stats.States++
		x.path = append(x.path, t)
		end := x.expand(kid.s, string(kid.key), t, kp)
		x.path = x.path[:len(x.path)-1]
		x.states.put(kid.s)
		if end.failure != nil || end.cut != "" {
			return end
		}
	}
	return dfsEnd{}
}

// child is s after t's step, and its key, or the step's failure.
func (x *porRun) child(s System, t ThreadID) porKid {
	c := x.states.copyOf(s)
	x.stats.Steps++
	if f := c.Step(t); f != nil {
		return porKid{s: c, fail: f}
	}
	return porKid{s: c, key: x.key(c, nil)}
}

// onStack reports whether a kid's key is the key of a state on the stack.
func (x *porRun) onStack(kids []porKid) bool {
	for _, k := range kids {
		if k.s != nil && k.fail == nil && x.stack[string(k.key)] > 0 {
			return true
		}
	}
	return false
}
