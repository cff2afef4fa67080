// Package model is the simulated CPython world in which the swap protocols
// run: module globals, the protocols' registries, threading.Lock objects,
// the simulator's kernel context and BlockThreads, and the host threads that
// launch kernels, and call device functions between launches, as
// numba-cuda's simulator does (kernel.py).
//
// # What a caller does
//
//  1. Build a scenario.Scenario (scenario.Shape.Build from command-line
//     numbers, or scenario.Parse of a scenario file) and pick a Protocol
//     (packages naive and swap).
//  2. NewProgram compiles them for an Atomicity (one of Atomicities: GIL,
//     FreeThreaded, FreeThreadedOverwrite).
//  3. New makes the initial World; Status, Footprint and Step drive it one
//     atomic step at a time (package check wraps it as a sched.System).
//
// # One step is one atomic CPython operation
//
// Under the GIL a thread switch falls only between bytecodes, and one
// C-level call (dict.update, dict.pop, del d[k], a defaultdict miss whose
// factory is a C type) runs whole. Every Instr of a listing is one such
// step, and names the line of testdata/python/<variant>.py and the
// bytecode(s) it stands for; testdata/cpython checks those claims against
// python3. Steps that touch only a frame's locals (imports, local
// assignments, the yield, a RERAISE) cannot be observed by another thread,
// so they run in the same scheduler step as the shared step before them.
// In the free-threaded modes a defaultdict miss is split into its lookup and
// its __missing__ store. With gh-142495 fixed (FreeThreaded) that store is a
// setdefault, so two threads that both miss get the same lock; before the
// fix (FreeThreadedOverwrite) it overwrites, and each gets its own.
//
// A scenario with faults (scenario/faults.go) gets one more thread, SIGINT, whose
// step raises KeyboardInterrupt in the host at one of CPython 3.11's
// eval-breaker checks (interrupt.go): a search explores where the
// interrupt lands as it explores the order of threads.
//
// Exceptions unwind as Python's do: an Instr that raises jumps to the
// innermost handler of its listing's exception table (a finally, a with's
// exit) with the exception pending; a frame without one is left and the
// exception is thrown into the caller's generator at its yield. A GPU thread
// that dies records its exception for the host, which aborts the block and
// re-raises without joining, as BlockManager.run does.
//
// # Why a listing, and why a flat vector
//
// A protocol could be written as a Go function run on a goroutine per
// thread, but then a thread's position and locals live in a goroutine's
// stack, which cannot be copied, hashed or compared. Later work needs
// exactly that: state caching, symmetry between identical GPU threads,
// parallel search. So a protocol is data, a listing of Instr (like a
// disassembly: label, Python line, bytecode, footprint, and a small Exec
// function over Ctx), and a thread's state is a program counter and a few
// locals. The listing stays readable as the Python it models, line by line,
// and the same listing can be run by any driver: the simulated scheduler
// here, or real goroutines taking a lock per step.
//
// All mutable state (globals, registries, locks, every thread's frames and
// locals) lives in one []int16 vector laid out once per Program. Copying a
// World is one copy; its canonical key is the vector's bytes; nothing in it
// is a pointer, a map or an address, so equal keys mean equal futures and
// the output never depends on memory layout. The searches store shorter
// keys: AppendCompactKey (exact: each thread's slots as a number in a
// program-wide table, SPIN's COLLAPSE) and AppendCanonicalKey (up to
// permuting a block's threads).
//
// A search's steps write no pointers: an Event records numbers, and its
// texts are filled in (Program.Describe) for traces and failures only.
//
// # Meaning first, speed around it
//
// A World is its program, its state (the vector), its Options (what a
// step records: a trace, a history) and one cache (a step's scratch and
// what the speed machinery knows); world.go says so in its type.
//
// What a step means is one function, World.interpret (interp.go), which
// reads and writes only the vector and the step's record. It runs the
// protocol's instruction (instrs.go, ctx.go: a listing's Instr, its Exec
// over a Ctx) or the body's statement, whose kind's row in stmts.go says
// everything the model knows of it: how it runs, when it is ready, its
// footprint and its future footprint, its description, where a fault or
// the GIL's hand-over can fall. The faults (interrupt.go, raisefault.go),
// the free-threaded split of a defaultdict miss (defaultdict.go) and the
// switch points (switchpoint.go) are meaning too.
//
// Everything else is in files named for what it is, and none of it
// changes what a step means (check's TestSpeedMachineryChangesNothing
// runs every search with it and without):
//
//   - speed_step.go: Step wraps interpret in the machinery below, and
//     forgets what the cache knew of the parts a step changed;
//   - speed_compact.go, speed_intern.go: the compact key numbers the
//     globals and each thread's slot block (and packs them in a word with
//     sched.PackUvarint);
//   - speed_memo.go: a GPU thread's step reads and writes only its own
//     slots and the shared ones, so once the compact key has numbered
//     both, the Program memoizes the step by (thread, block number,
//     globals number) and a search that meets them again copies the
//     outcome in instead of interpreting;
//   - speed_lazy.go: a world whose steps were all recalled keeps only the
//     numbers (stale) and writes its vector back when something reads it;
//     the statuses of its threads are memoized too;
//   - speed_peek.go: a search asks for a child's word key without making
//     it.
//
// The reductions change what a search counts, not what it finds, and are
// named so: reduce_canonical.go, the key up to symmetry between a block's
// threads; reduce_futures.go, what a thread may still touch, for POR's
// persistent sets.
//
// Tests switch the machinery's checks on, or break it on purpose, through
// one debug struct (debug.go) that only testhooks.go sets, from tests.
// This package's own tests need nothing above it (go list -test -deps
// ./model: scenario, sched); the tests of the model that run the real
// protocols live in check/worldtest.
package model
