// Package check states what "correct" means for the module swap and runs
// the searches that look for a counterexample.
//
// A caller does, in order:
//
//  1. pick a protocol by name (Protocols, Lookup) and build a scenario
//     (scenario.Shape.Build or scenario.Parse);
//  2. fill a Config and call Explore, which wraps the model in the
//     invariants (System), replays the known counterexamples of
//     Config.Corpus (ReadCorpus) and, when none of them fails on the
//     scenario, runs the strategy, shortens a counterexample to
//     the fewest steps, with Config.Shrink shrinks it (the smallest
//     scenario, the fewest preemptions, the fewest steps, of the same
//     kind; Report.Shrink says what shrank), and returns a Report;
//  3. render the Report: NewTrace is its one canonical rendering, written
//     for people (WriteText, or WriteTrace at once) and as trace.json
//     (WriteJSON, docs/trace-format.md); Summary for machines;
//     WriteSchedule for -replay, which reads either file back (ReadReplay).
//
// Config bounds a search by executions, depth, a timeout, the caller's
// Stop and memory (Config.Memory, from package check/memory, which reads
// what the process holds: package sched reads no system state). With
// several workers, a counterexample is the one the same search on one
// worker finds, so that identical input gives identical output.
//
// The invariants, each a violation kind: use-saw-real, use-saw-none,
// use-saw-other-fake (a use of cuda saw something other than its launch's
// fake), exception (the swap machinery raised), left-swapped and
// registry-leftover (the end state is not clean), deadlock, and
// not-linearizable (on walks: the history of swaps and reads has no
// order that follows the sequential specification). porcupine rejects a
// history when a read saw the real module inside its thread's own call,
// which is a use-saw-real, reported at that step; a search reports
// not-linearizable only for an execution that ends with no other failure,
// as one whose read saw a swapped module while no call into it was open
// would; TestWalksNeverEndNotLinearizable looks for one and has met
// none. The history of a use-saw-real counterexample is rejected, and
// VisualizeLinearizability draws it with porcupine. The simulator's other
// shared state has two more (memory.go): lost-update (once every thread
// ended, no order of the atomics, each thread's in its order, gives the
// arrays and what the atomics returned: porcupine again, per element) and
// shared-not-shared (two threads of a launch got different arrays from
// one cuda.shared.array line) and stale-read (after cuda.syncthreads() a
// load of a slot that another thread of the block stored to before the
// barrier reads another array than the store went into: the harm of a
// split, so a search, which stops at the split, reports it first only
// where a split is not checked; random walks and replays see both).
//
// Each violation has a class (Harm): after-failure when only a thread of a
// launch that had already failed (a lingering thread of an aborted block)
// saw it, harmful otherwise. Config.Scope says which end a search: by
// default only harmful ones, so that "verified" means no harmful
// violation; an after-failure violation is counted (Report.AfterFailures)
// and the execution goes on past it.
package check
