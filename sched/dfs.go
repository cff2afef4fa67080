package sched

// DFS is an exhaustive depth-first search with a visited set of states: each
// distinct state (by its exact key: AppendKey, or AppendCompactKey where the
// system is Compact) is expanded once. At every state it tries
// the thread that ran last first, so the first counterexample found tends to
// have few preemptions.
type DFS struct{}

// Name implements Strategy.
func (DFS) Name() string { return "dfs" }

// Exhaustive implements Strategy.
func (DFS) Exhaustive() bool { return true }

// dfsFrame is one state of a depth-first stack (the state itself is
// kept in the search's levels).
type dfsFrame struct {
	via   ThreadID // the thread whose step led here
	order []ThreadID
	next  int
	// preempts: the preemptions on the path to the state.
	preempts int
}

// Run implements Strategy: statefulDFS keyed by the exact state.
func (DFS) Run(init System, lim Limits) Result { return statefulDFS(init, lim, keyOf) }

// terminal checks a state with no runnable thread.
func terminal(s System, allDone bool) *Failure {
	if !allDone {
		return deadlock(s)
	}
	return s.Final()
}
