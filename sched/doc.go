// Package sched explores the interleavings of a deterministic multi-threaded
// state machine. It knows nothing of Python: a System is a set of threads,
// each with a next step that is runnable, blocked or absent (the thread is
// done), and a step is one atomic transition that may report a Failure.
//
// A caller does, in order:
//
//  1. implement System (Clone must copy all state; AppendKey must encode it
//     canonically, so equal keys mean equal futures), and, for speed, the
//     optional interfaces: Copier (recycle states), RunnableLister (list
//     runnable threads in one call), Compact (a shorter exact key, which
//     the exact searches store instead) and Canonical (a key up to
//     symmetry, for States);
//  2. pick a Strategy: DFS or BFS (exhaustive, with a visited set of states),
//     States (DFS keyed up to symmetry), Parallel (either, on several
//     goroutines sharing a lock-free visited set),
//     DPOR (exhaustive and stateless, reducing by partial order; it trusts
//     Footprint to declare every dependence, enabling and blocking
//     included), Bounded (every schedule up to a number of preemptions,
//     fewest first), Random or PCT (seeded walks, PCT with a probability
//     guarantee per bug depth) or Replay (one recorded schedule);
//  3. call Run with Limits, and read the Result: a Verdict value, never an
//     error, plus the schedule of a counterexample.
//
// All randomness goes through one Chooser: NewSeeded for search, NewReplay
// for a recorded list of choices. Nothing here reads a clock, prints, or
// iterates a map in an order that reaches a result.
package sched
