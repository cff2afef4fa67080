// Package stress runs the protocol listings on real goroutines: every
// simulated thread of a kernel launch (the host and each GPU thread) is a
// goroutine stepping one shared model.World, with the world's atomicity
// enforced by real locks. It does two jobs the simulated scheduler cannot:
// measure what each protocol costs on real hardware under contention
// (package benchmarks), and show how long plain stress testing takes to find
// each bug, next to a systematic search (Compare).
//
// # What a caller does
//
//  1. Build a scenario (scenario.Shape.BuildUpTo(scenario.MaxStressThreads) allows
//     up to 1024 threads per block, CUDA's maximum) and pick a protocol.
//  2. Fill a Config: the atomicity, a budget (Duration and/or MaxCalls), a
//     Seed for the scheduling noise, and Stop to cancel (Ctrl-C).
//  3. Run it. It launches the kernel again and again, a fresh World per
//     launch, until the budget is spent or an invariant breaks. The Result
//     counts launches, device calls and steps; on a violation it says which
//     thread, which step, after how long and how many calls, and lists the
//     steps just before it. WriteReport and Summarize render it.
//  4. Compare and WriteComparison time the first counterexample of each
//     buggy variant by every check strategy and by stress.
//
// Run returns only when every goroutine it started has exited.
//
// # How a step is made atomic
//
// A goroutine's loop is: read its thread's next Footprint (its own state),
// take the locks that footprint names, check Status, Step (check.System's,
// so the invariants are the search's), release, wake whoever the step may
// have unblocked.
//
// In GIL mode the lock is one mutex, held for exactly one model step; every
// model step is one atomic CPython operation, and CPython with the GIL
// switches only between them. In gil-breaker mode a goroutine whose step
// ended at no switch point (model.World.KeepsGIL) keeps the mutex for its
// next step, as a CPython 3.11 thread keeps the GIL until it reaches an
// eval-breaker check, blocks or ends. After a step a goroutine yields
// (runtime.Gosched) with probability Config.Gosched, drawn from a generator
// seeded by Config.Seed.
//
// In free-threaded mode there is no global lock: a step takes the lock of
// its footprint's object (read or write, as the footprint says: CPython's
// per-object critical sections) and, for a GPU thread, its block's group
// lock shared (members) while the host's start and poll of that block take
// it exclusive (watchers). Steps whose footprints are independent run in
// parallel, which is exactly what the footprints claim is safe; go test
// -race checks that claim.
//
// A thread whose next step is blocked (a Python lock held, the barrier, the
// host polling a block that has not arrived) parks on a wait queue keyed by
// what it waits for, and the step that can unblock it wakes that queue, so
// nobody spins. When every live goroutine is parked, no step can ever wake
// one: that is a deadlock, reported as the search reports it.
//
// # Violations replay
//
// Each step's position in the launch is recorded: in GIL mode a counter
// under the lock, in free-threaded mode the monotonic clock read inside the
// step's locks, which orders every two conflicting steps as they ran. Sorted,
// the steps up to the violation are a schedule the simulator replays to the
// same failure (Violation.Reproduced says whether it did), which gives a
// trace and the steps just before the failure.
package stress
