package sched

// porReducer works out persistent sets (see POR) for one goroutine: its
// fields are the closure's scratch.
type porReducer struct {
	fault porFault
	// futures: the states are Futures (else every state is expanded
	// fully); fut is the one being reduced
	futures bool
	fut     Futures
	// inT marks the closure's threads, status the runnable ones, done
	// the ones that have ended (asked once a state: with the futures
	// scratch's fresh flag, 1.26 times as fast on BenchmarkPORMerged4's
	// one worker, 1.19 on BenchmarkPORMerged)
	inT, status, done []bool
	work, ens         []ThreadID
	// scratch is this goroutine's futures scratch, if the system uses one
	scratch any
	// rank is the order the closure takes threads in: the state's
	// canonical order where it has one (CanonicalOrderer), else their
	// numbers'; marked is the enablers' scratch
	rank   []ThreadID
	marked []bool
	// tied marks the threads of rank tied with the one before
	// (CanonicalTies)
	tied []bool
	// amp is what ample returns
	amp []bool
}

func newPORReducer(fault porFault, init System) porReducer {
	n := init.NumThreads()
	_, futures := init.(Futures)
	x := porReducer{fault: fault, futures: futures, inT: make([]bool, n), status: make([]bool, n), done: make([]bool, n), marked: make([]bool, n), amp: make([]bool, n)}
	if futures {
		x.scratch = init.(Futures).NewFuturesScratch()
	}
	return x
}

// keep cuts order, the runnable threads of s, down to a persistent set's,
// in place and in their order.
func (x *porReducer) keep(s System, order []ThreadID) []ThreadID {
	amp := x.ample(s, order)
	kept := order[:0]
	for _, t := range order {
		if amp[t] {
			kept = append(kept, t)
		}
	}
	return kept
}

// ample marks the threads to run from s, whose runnable threads are
// order: a persistent set's (see POR), or all of them. What it returns is
// x's scratch, until its next call.
//
// The seeds are tried, and each closure takes threads, in the state's
// canonical order (CanonicalOrderer), not in order's, which puts first
// the thread that ran last: the set kept is then a function of the state
// alone, not of the path that reached it, and the sets kept at two states
// of one orbit are each other's image under the permutation between them
// (threads the canonical order ties are ones whose swap leaves the state
// as it is). The reduced graph's orbits are then the same whichever state
// of an orbit is expanded, so a search on several workers reaches the
// same ones, and counts the same, however the workers race.
func (x *porReducer) ample(s System, order []ThreadID) []bool {
	n := s.NumThreads()
	amp := x.amp
	clear(amp)
	if !x.futures || len(order) == 1 {
		for _, t := range order {
			amp[t] = true
		}
		return amp
	}
	x.fut = s.(Futures)
	if x.scratch != nil {
		x.fut.UseFuturesScratch(x.scratch)
	}
	clear(x.status)
	for _, t := range order {
		x.status[t] = true
	}
	for t := range ThreadID(n) {
		x.done[t] = !x.status[t] && s.Status(t) == Done
	}
	x.rank = x.rank[:0]
	if co, ok := s.(CanonicalOrderer); ok {
		x.rank = co.AppendCanonicalOrder(x.rank)
	} else {
		for t := range ThreadID(n) {
			x.rank = append(x.rank, t)
		}
	}
	x.tied = x.tied[:0]
	if ct, ok := s.(CanonicalTies); ok {
		x.tied = ct.AppendCanonicalTies(x.rank, x.tied)
	}
	best, bestN := ThreadID(-1), len(order)
	for i, seed := range x.rank {
		if !x.status[seed] || len(x.tied) > 0 && x.tied[i] {
			// a seed tied with the one before is that one's image under
			// a swap that leaves the state as it is (CanonicalTies): its
			// closure is the image of that one's taken with the two met
			// in the other order, as large but where the order of the
			// two decides what a frozen one holds back. Every closure
			// is a persistent set, so trying one seed of a run is sound.
			// This, the tied answers below and the model's footprint
			// memo: BenchmarkPORMergedWide (package check) 1.41 s to
			// 0.74 s a search, BenchmarkPORMerged unchanged (benchstat,
			// n=6).
			continue
		}
		if got := x.closure(s, seed, bestN); got < bestN {
			best, bestN = seed, got
			if bestN == 1 {
				break
			}
		}
	}
	if best < 0 {
		for _, t := range order {
			amp[t] = true
		}
	} else {
		x.closure(s, best, len(order)+1)
		for _, t := range order {
			amp[t] = x.inT[t]
		}
	}
	if tc, ok := s.(TiedChildren); ok && len(x.tied) > 0 && tc.SkipTiedChildren() {
		// a tied thread's child is its run's first one's image
		kept := false
		for i, t := range x.rank {
			switch {
			case !x.tied[i]:
				kept = amp[t]
			case kept:
				amp[t] = false
			}
		}
	}
	return amp
}

// closure computes in x.inT the closed set T from seed (see POR) and
// returns how many of its threads can run; it gives up, returning at
// least limit, once that many can.
func (x *porReducer) closure(s System, seed ThreadID, limit int) int {
	clear(x.inT)
	x.inT[seed] = true
	x.work = append(x.work[:0], seed)
	runnable := 1
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
		if x.done[p] { // an enabler that ended: it never steps again
			continue
		}
		if x.status[p] {
			skip := false // the run of tied threads q is in answered no
			for i, q := range x.rank {
				if len(x.tied) == 0 || !x.tied[i] {
					skip = false
				}
				if x.inT[q] || x.done[q] {
					skip = false // the next one's swap with q moves the frozen set
					continue
				}
				if skip {
					// q's swap with the tied thread before it, neither
					// frozen, leaves the state, p and the frozen set as
					// they are: its answer is that one's, no
					continue
				}
				if x.conflicts(s, p, q) {
					add(q)
				} else {
					skip = true
				}
			}
			continue
		}
		x.ens = x.fut.AppendEnablers(p, x.inT, x.ens[:0])
		for _, q := range x.ens {
			x.marked[q] = true
		}
		for _, q := range x.rank {
			if x.marked[q] {
				x.marked[q] = false
				add(q)
			}
		}
	}
	return runnable
}

// conflicts is Futures.MayConflict, or, in the broken variant that
// ignores futures, the dependence of the two next steps.
func (x *porReducer) conflicts(s System, p, q ThreadID) bool {
	if x.fault == porNextStepsOnly {
		return s.Footprint(p).Dependent(s.Footprint(q))
	}
	return x.fut.MayConflict(p, q, x.inT)
}
