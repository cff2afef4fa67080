package sched

// States is an exhaustive depth-first search with a visited set keyed by
// canonical keys when the system is Canonical (and by AppendKey otherwise,
// which makes it DFS): a state is expanded once per orbit, so n
// interchangeable threads cost up to n! times fewer states than DFS stores
// (and fewer still if the keys also leave out what no step reads: merged
// with 5 threads, 2.87M states under DFS, 11.6k here).
//
// The search moves through real states: only the keys are canonical, so
// a counterexample's schedule is one that really runs, and it is the one
// DFS finds. (Both take the first failing path of the same depth-first
// order over executions: a state either search skips was reached before,
// in itself or as a renaming, and nothing that fails is reachable from it.)
type States struct{}

// Name implements Strategy.
func (States) Name() string { return "states" }

// Exhaustive implements Strategy.
func (States) Exhaustive() bool { return true }

// Run implements Strategy.
func (States) Run(init System, lim Limits) Result {
	if _, ok := init.(Canonical); ok {
		return statefulDFS(init, lim, canonicalKeyOf, false)
	}
	return statefulDFS(init, lim, keyOf, true)
}

// canonicalKeyOf is a Canonical system's canonical key, appended to buf.
func canonicalKeyOf(s System, buf []byte) []byte {
	return s.(Canonical).AppendCanonicalKey(buf[:0])
}

// statefulDFS is DFS with the state key of keyOf, which is the exact key
// (the package's keyOf) when exact is set. At every state it tries the
// thread that ran last first, so the first counterexample found tends to
// have few preemptions.
func statefulDFS(init System, lim Limits, keyOf func(System, []byte) []byte, exact bool) Result {
	var res Result
	d := depthFirst{set: newSearchSet(1, lim).join(), key: keyOf, maxDepth: lim.maxDepth()}
	d.useWords(init, exact)
	defer d.set.set.free() // after finish has read its size
	d.set.add(keyOf(init, nil))
	d.stats.States = 1
	stop := newStopper(lim, &d.stats)

	finish := func(v Verdict, cut string) Result {
		res.Verdict, res.Complete, res.Cut = v, v == Verified, cut
		res.Stats = d.stats
		res.Stats.MemoryBytes = d.set.set.bytes()
		return res
	}

	start := init.Clone()
	if buf, allDone := runnable(start, nil); len(buf) == 0 {
		if f := terminal(start, allDone); f != nil {
			res.Failure, res.Schedule = f, []ThreadID{}
			d.stats.execution(0) // the failing one
			return finish(Violation, "")
		}
		d.stats.execution(0)
		return finish(Verified, "")
	}
	d.maxExecutions = lim.MaxExecutions
	end := d.searchFrom(start, -1, 0, 0, func() string {
		if stop.now() {
			return "stopped"
		}
		return ""
	})
	switch {
	case end.failure != nil:
		res.Failure, res.Schedule = end.failure, end.path
		d.stats.execution(end.preempts) // the failing one
		return finish(Violation, "")
	case end.cut != "":
		return finish(Incomplete, end.cut)
	}
	return finish(Verified, "")
}
