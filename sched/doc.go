// Package sched explores the interleavings of a deterministic multi-threaded
// state machine. It knows nothing of Python: a System is a set of threads,
// each with a next step that is runnable, blocked or absent (the thread is
// done), and a step is one atomic transition that may report a Failure.
//
// A caller does, in order:
//
//  1. implement System (Clone must copy all state; AppendKey must encode it
//     canonically, so equal keys mean equal futures), and, for speed or a
//     reduction, any of the eight optional interfaces, each asserted at
//     compile time where it is implemented (var _ sched.X = (*T)(nil)):
//
//     interface         what it gives                                 searches that use it      implemented by
//     Copier            recycle states instead of cloning             all but the walks         check.System, toy systems
//     RunnableLister    the runnable threads in one call              all but DPOR              check.System
//     Compact           a shorter exact key, and its word packing     DFS, BFS, Bounded,        check.System
//     (stored instead of AppendKey's)               Parallel, Interleavings
//     WordPeeker        a child's word key without making it          DFS, Parallel             check.System
//     Canonical         a key up to symmetry (changes the counts)     States, POR, Parallel     check.System, toy systems
//     with Symmetry
//     CanonicalOrderer  the threads in their canonical order, so      POR on several workers    check.System
//     the counts do not depend on the workers
//     CanonicalTies     which threads of that order a swap leaves     POR                       check.System, toy systems
//     as they are (one seed per run of them)
//     Futures           what the threads may still do, whether the    POR                       check.System, toy systems
//     graph is acyclic, a memo per goroutine
//
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
//
//  3. call Run with Limits, and read the Result: a Verdict value, never an
//     error, plus the schedule of a counterexample.
//
// # Which search uses which optional interface
//
// A search uses an interface only when the system implements it, and
// none of the speed interfaces (all but Canonical, CanonicalOrderer and
// Futures) changes what it reports (check's
// TestSpeedMachineryChangesNothing runs every search with them and
// without). "key" is the exact key: AppendCompactKey where the system is
// Compact, else AppendKey.
//
//	search         Copier  RunnableLister  Compact        WordPeeker  Canonical
//	DFS            yes     yes             key, word      yes         -
//	States         yes     yes             -              -           key
//	POR            yes     yes             -              -           key
//	(Acyclic)      as Parallel with Symmetry
//	Parallel       yes     yes             key, word      yes         with Symmetry
//	BFS            yes     yes             key            -           -
//	Bounded        yes     yes             key            -           -
//	DPOR           yes     -               -              -           -
//	Random, PCT,   -       yes             -              -           -
//	Replay
//	Interleavings  -       yes             key            -           -
//
// ("word": CompactWord, the key packed in a word. States, and Parallel
// with Symmetry, key states exactly, as DFS does, where the system is not
// Canonical. "(Acyclic)": POR on a system whose Futures says it is
// acyclic.)
//
// All randomness goes through one Chooser: NewSeeded for search, NewReplaying
// for a recorded list of choices. Nothing here reads a clock, prints, or
// iterates a map in an order that reaches a result.
package sched
