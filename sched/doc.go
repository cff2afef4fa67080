// Package sched explores the interleavings of a deterministic multi-threaded
// state machine. It knows nothing of Python: a System is a set of threads,
// each with a next step that is runnable, blocked or absent (the thread is
// done), and a step is one atomic transition that may report a Failure.
//
// A caller does, in order:
//
//  1. implement System (Clone must copy all state; AppendKey must encode it
//     canonically, so equal keys mean equal futures), and, for speed, any
//     of the optional interfaces (optional.go; the table below says which
//     search uses which): Copier (recycle states), RunnableLister (list
//     runnable threads in one call), KeyViewer (read the key in place),
//     Compact (a shorter exact key, which the exact searches store
//     instead, and its packing in a word) and WordPeeker (tell a child's
//     word key without making it); and Canonical (a key up to symmetry,
//     for States and Parallel with Symmetry, which changes the counts);
//     for POR, Futures (what the threads may still do), Acyclic (no
//     state reaches itself: no proviso, and several workers),
//     FuturesScratch (a memo per goroutine) and CanonicalOrderer (the
//     threads in their canonical order, so that the counts do not depend
//     on the workers);
//  2. pick a Strategy: DFS or BFS (exhaustive, with a visited set of states),
//     States (DFS keyed up to symmetry), POR (States running only a
//     persistent set of threads at each state, from what Futures says
//     of the threads' futures), Parallel (either, on several
//     goroutines sharing a lock-free visited set),
//     DPOR (exhaustive and stateless, reducing by partial order; it trusts
//     Footprint to declare every dependence, enabling and blocking
//     included), Bounded (every schedule up to a number of preemptions,
//     fewest first), Random or PCT (seeded walks, PCT with a probability
//     guarantee per bug depth) or Replay (one recorded schedule);
//  3. call Run with Limits, and read the Result: a Verdict value, never an
//     error, plus the schedule of a counterexample.
//
// # Which search uses which optional interface
//
// A search uses an interface only when the system implements it, and
// none of the speed interfaces changes what it reports (check's
// TestSpeedMachineryChangesNothing runs every search with them and
// without). "key" is the exact key: AppendCompactKey where the system is
// Compact, else KeyView, else AppendKey.
//
//	search         Copier  RunnableLister  KeyViewer  Compact        WordPeeker  Canonical
//	DFS            yes     yes             key        key, word      yes         -
//	States         yes     yes             -          -              -           key
//	POR            yes     yes             -          -              -           key
//	(Acyclic)      as Parallel with Symmetry
//	Parallel       yes     yes             key        key, word      yes         with Symmetry
//	BFS            yes     yes             key        key            -           -
//	Bounded        yes     yes             key        key            -           -
//	DPOR           yes     -               -          -              -           -
//	Random, PCT,   -       yes             -          -              -           -
//	Replay
//	Interleavings  -       yes             key        key            -           -
//
// ("word": CompactWord, the key packed in a word. States, and Parallel
// with Symmetry, key states exactly, as DFS does, where the system is not
// Canonical.)
//
// All randomness goes through one Chooser: NewSeeded for search, NewReplaying
// for a recorded list of choices. Nothing here reads a clock, prints, or
// iterates a map in an order that reaches a result.
package sched
