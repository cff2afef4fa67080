package sched

import "fmt"

// POR is the states search (a visited set keyed up to symmetry where the
// system is Canonical) with a stateful partial-order reduction: at each
// state it runs only the threads of a persistent set, worked out from what
// the system says of its threads' futures (Futures), and every runnable
// thread where the stack proviso asks for it. A system that does not
// implement Futures gets no reduction: POR is then States, counts
// included.
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
// Every seed is tried (the thread that ran last first) and the closure
// with the fewest runnable threads is kept. Its runnable threads are a
// persistent set: in any execution from the state made of steps of other
// threads only, every step is independent of every next step of T, and
// none enables a blocked step of T (by the two rules, by induction along
// the execution). Hence any execution from the state that ends in a
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
// closed by a match, postpones that thread for ever. The model's state
// graph has no cycle (every step advances its thread's code position,
// loops included, and the host's busy-wait is modelled as blocking, not
// as a step), but a match up to symmetry closes a cycle of orbits just as
// well: a state whose renaming is on the stack. So POR applies the stack
// proviso (Peled's C3, as SPIN does it): a state one of whose reduced
// children's keys is the key of a state on the depth-first stack is
// expanded fully. Keys are canonical keys, so the proviso sees cycles of
// orbits, and the cycles of real states among them.
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
// reaches one. It does, by induction over the depth-first order with the
// proviso: r's search either finished, and its persistent sets, each
// persistent in the real graph, lead to a failure as above; or r is on
// the stack, and then s's parent was expanded fully. The search moves
// through real states, so a counterexample's schedule really runs.
//
// The tests that guard this: TestPORAgreesWithEnumeration (random toy
// programs against the enumeration of every interleaving), the cyclic
// toy programs against DFS, TestBrokenPORCaught (each deliberately
// broken variant is caught), and check's every-variant and every-scenario
// comparisons with states.
type POR struct {
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

// Futures is implemented by systems that can bound what their threads may
// still do, for POR. frozen marks the threads of a set T, which take no
// step in the executions both methods speak of; a method may use it only
// to say less (a thread held up by a frozen thread's lock does not get
// past it). Both must hold for every execution from the current state in
// which no frozen thread steps and no step fails but the last (a failing
// step ends an execution), or POR misses states.
type Futures interface {
	// MayConflict reports whether thread q, not frozen, may come to take a
	// step dependent with thread p's next step, which can run, p frozen: a
	// step that does not commute with it, or that enables or disables it,
	// or that it enables or disables.
	MayConflict(p, q ThreadID, frozen []bool) bool
	// AppendEnablers appends to buf the threads one of which steps in
	// every execution in which thread q's next step, blocked now, becomes
	// runnable without a step of a frozen thread (q itself is frozen).
	AppendEnablers(q ThreadID, frozen []bool, buf []ThreadID) []ThreadID
}

// Name implements Strategy.
func (POR) Name() string { return "por" }

// Exhaustive implements Strategy.
func (POR) Exhaustive() bool { return true }

// porRun is one run of POR.
type porRun struct {
	fault porFault
	// futures: the states are Futures (else every state is expanded
	// fully); fut is the one being expanded
	futures  bool
	fut      Futures
	key      func(System, []byte) []byte
	set      *setUser
	stack    map[string]int // the keys of the states on the stack
	stats    Stats
	stop     stopper
	maxDepth int
	maxExec  int64
	path     []ThreadID
	// states recycles the children once searched (Copier)
	states pool
	// the closure's scratch
	inT, status []bool
	work, ens   []ThreadID
}

// Run implements Strategy.
func (p POR) Run(init System, lim Limits) Result {
	x := &porRun{fault: p.fault, key: keyOf, maxDepth: lim.maxDepth(), maxExec: lim.MaxExecutions,
		stack: map[string]int{}}
	if _, ok := init.(Canonical); ok {
		x.key = canonicalKeyOf
	}
	_, x.futures = init.(Futures)
	n := init.NumThreads()
	x.inT, x.status = make([]bool, n), make([]bool, n)
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
	amp := x.ample(s, order)
	x.stack[key]++
	defer func() {
		if x.stack[key]--; x.stack[key] == 0 {
			delete(x.stack, key)
		}
	}()
	// The reduced set's children are made first, for the proviso to see
	// their keys; the others, when every thread runs, in their turn, so
	// that a search that reduces nothing tries them in States' order.
	kids := make([]porKid, len(order))
	reduced := false
	for _, t := range order {
		reduced = reduced || !amp[t]
	}
	if reduced {
		for i, t := range order {
			if amp[t] {
				kids[i] = x.child(s, t)
			}
		}
		if x.fault != porNoProviso && x.onStack(kids) {
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

// ample marks the threads to run from s, whose runnable threads are
// order: a persistent set's (see POR), or all of them.
func (x *porRun) ample(s System, order []ThreadID) []bool {
	n := s.NumThreads()
	amp := make([]bool, n)
	if !x.futures || len(order) == 1 {
		for _, t := range order {
			amp[t] = true
		}
		return amp
	}
	x.fut = s.(Futures)
	clear(x.status)
	for _, t := range order {
		x.status[t] = true
	}
	best, bestN := -1, len(order)
	for i, seed := range order {
		if got := x.closure(s, seed, bestN); got < bestN {
			best, bestN = i, got
			if bestN == 1 {
				break
			}
		}
	}
	if best < 0 {
		for _, t := range order {
			amp[t] = true
		}
		return amp
	}
	x.closure(s, order[best], len(order)+1)
	for _, t := range order {
		amp[t] = x.inT[t]
	}
	return amp
}

// closure computes in x.inT the closed set T from seed (see POR) and
// returns how many of its threads can run; it gives up, returning at
// least limit, once that many can.
func (x *porRun) closure(s System, seed ThreadID, limit int) int {
	clear(x.inT)
	x.inT[seed] = true
	x.work = append(x.work[:0], seed)
	runnable := 1
	n := ThreadID(len(x.inT))
	add := func(q ThreadID) {
		if !x.inT[q] {
			x.inT[q] = true
			x.work = append(x.work, q)
			if x.status[q] {
				runnable++
			}
		}
	}
	for len(x.work) > 0 && runnable < limit {
		p := x.work[len(x.work)-1]
		x.work = x.work[:len(x.work)-1]
		if s.Status(p) == Done { // an enabler that ended: it never steps again
			continue
		}
		if x.status[p] {
			for q := range n {
				if !x.inT[q] && s.Status(q) != Done && x.conflicts(s, p, q) {
					add(q)
				}
			}
			continue
		}
		x.ens = x.fut.AppendEnablers(p, x.inT, x.ens[:0])
		for _, q := range x.ens {
			add(q)
		}
	}
	return runnable
}

// conflicts is Futures.MayConflict, or, in the broken variant that
// ignores futures, the dependence of the two next steps.
func (x *porRun) conflicts(s System, p, q ThreadID) bool {
	if x.fault == porNextStepsOnly {
		return s.Footprint(p).Dependent(s.Footprint(q))
	}
	return x.fut.MayConflict(p, q, x.inT)
}
