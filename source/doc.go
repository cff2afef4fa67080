// Package source checks a swap function as a user has it in a Python
// file (numba-cuda's kernelapi.py at any commit, numba's own, a patched
// copy): a real CPython compiles the file (package pysource), package
// pyvm runs its bytecode one instruction at a time, and this package puts
// that code in a launch of the simulator, as a sched.System the searches
// explore. It is explore's -source.
//
// # The world
//
// Host threads and their launches' GPU threads, each a pyvm thread. What
// runs as the file's own bytecode: the module body (once, before the
// search: its registries and locks are the file's), and every call of the
// swap function, its context manager's __enter__ and its __exit__. What
// this package runs as the simulator's own code, one statement a step, as
// package model has it (kernel.py at numba-cuda's commits):
// the launch (`_kernel_context = mod`, the swap of the kernel's module,
// `t.start()` per thread, the wait for the block, the swap's exit,
// `_kernel_context = None`), and each GPU thread's kernel and device
// function bodies: a use of `cuda` loads the module global and checks
// what it holds; a device call reads `_kernel_context` and runs `with
// swapped_cuda_module(fn, ctx):` around the callee's body.
//
// The scenario is a scenario.Scenario. What this package takes of it:
// uses and device calls (nesting, several modules and names), branches
// on a thread's index and loops (flattened per thread, as package model
// does), several blocks and launches, several hosts (each launching at
// once: FakeCUDAKernel.__call__ reads `_kernel_context` before it sets
// it, and runs the kernel inline, as a device function, when another
// host's launch set it; or its assert fails and the launch does not
// start), cuda.syncthreads() (a use of cuda, then the barrier the host's
// poll releases once every live thread of the block waits at it, as the
// model's BlockManager.run does), and device functions
// the host calls itself (-host-calls: kernel.py:84-86 swaps the
// function's module to `_get_kernel_context()`, None outside a launch,
// so its uses raise AttributeError, which the host catches, as in the
// model), raising kernels and the raise fault (faults.go: a thread dies,
// the host's poll aborts its block and re-raises through the launch's
// with, the block's other threads linger with their abort flags set), and
// the interrupt with one host (interrupt.go: it lands at the file's own
// eval-breaker checks only, so a search without a violation is no proof:
// Program.Partial). The rest is refused, before anything runs, in one
// line naming it: interrupts with several hosts, atomics and shared
// arrays, simulator fixes (package model has them for the listings).
//
// kernel.py is numba-cuda's, or, with Options.ThreadContext (explore's
// -thread-context), as docs/proposed_fix.md patches it, as
// model.Protocol.ThreadContext runs the variants proposed and merged-fix:
// no module-level _kernel_context is set, tested or asserted, and a
// device call passes its thread's own launch's fake (a host's: None).
// When the file calls threading.current_thread(), each GPU thread's
// object is its BlockThread with abort False (kernel.py:192), set True
// when the host's poll aborts its block.
//
// # One step
//
// Atomicity gil: a thread switch may fall between any two instructions,
// so a step is one instruction that touches something another thread can
// touch (pyvm.StepInfo.Shared: a shared location, a blocked lock), with
// the instructions before it that touch only the thread's own frame and
// unpublished objects merged into it: no other thread can observe them or
// change what they do, so running them at once or later gives the same
// states at every shared step. The free-threaded modes are gil's steps
// with a defaultdict miss split (pyvm.MissSplitSetdefault,
// MissSplitOverwrite), as the listings split it. gil-breaker: a thread
// keeps the GIL from one eval-breaker check of that CPython version
// (StepInfo.Check, checked against switch points recorded on the real
// interpreters) to the next, or to a lock it blocks on, so a step is every
// instruction up to such a point; a stretch between two checks that
// touched nothing shared is merged into the stretch after it, as gil
// merges local instructions (a switch at that check shows no other thread
// anything this thread did since the last one, nor changes what it does). In every mode a statement of the
// simulator's own code ends a step (the file's local instructions before it merged into it): a
// switch may fall after each, which gil-breaker allows where CPython
// might not (a call into Python checks the eval breaker, a statement
// between two calls may not), so gil-breaker's verdict here covers at
// least CPython's interleavings, and a counterexample may use a switch
// CPython cannot make after a statement of the simulator's code, never
// inside the file's.
//
// # State
//
// A state is every thread's place in the simulator's code, the kernel
// context, and the interpreter's state under pyvm's canonical key (its
// heap numbered by a walk from the roots, the context managers the
// threads hold among them), with each block's GPU threads taken in an
// order read off the state (World.AppendKey): states equal up to
// exchanging two alike threads share a key. A thread's status comes
// from a trial of its step on a copy when some lock is held; otherwise
// it is runnable. Footprint says every step depends on every other: the
// partial-order reduction below works from futures, not footprints.
//
// # Transactions
//
// What explore -source searches (Search) is the Program's reduced world
// where the reduction covers it (Program.Reduced: gil and the
// free-threaded modes, no faults, no loop that can come back to a
// state, no threading.current_thread()): a step there runs a thread's
// lock acquires and lock-protected instructions up to the next
// instruction another thread can see, or the next release
// (transactions.go: Lipton's movers, the locking discipline they rest
// on checked by locksets kept in the state, and searched again with
// fewer movers where one broke). A counterexample's schedule is turned
// back into one of the Program's own steps (Program.Expand), which
// every trace, replay and shrink takes; the reduced world is for the
// search alone. Elsewhere every instruction that touches what another
// thread can is a step, as above.
//
// # Persistent sets
//
// With one host, the reduced world is searched by sched.POR: at each
// state only a persistent set of threads' transactions is taken, worked
// out from what each thread may still touch (futures.go: the objects
// reachable from what it holds and from the globals its code still to
// run names; what a thread's next transaction touches, from its trial),
// and, of threads whose swap leaves the state as it is (a block's
// threads at one place holding alike objects of their own), one child
// is made. A use of cuda by a GPU thread is a both-mover
// (transactions.go, "Uses"), so a thread's body joins its exit's lock
// block; a write of a registry's shape is one too (transactions.go,
// "Registries as sets"). Then merged.py's threads move through the swap
// a phase at a time: -threads 32 is 5,599 states, -threads 8 -calls 2
// -modules 2 18,639. Several modules still interleave their swaps
// (futures are objects, not a registry's entries, and every
// registration block takes one lock), so -threads 16 -calls 2
// -modules 2 is out of reach (docs/source.md measures them).
//
// # What is checked
//
// A file with a loop that can come back to a state (Program.MayLoop: a
// while loop, a wait that polls) is checked once more by sched.Hang,
// which explore -source runs after a search without a violation: every
// reachable state must still reach an end (hang otherwise: a thread that
// spins holding the lock another needs breaks no property of a step).
//
// The model's properties of a launch, from what the file's code did: a
// use of `cuda` sees its launch's fake (use-saw-real, use-saw-none,
// use-saw-other-fake otherwise); no exception leaves the swap function,
// its __enter__ or its __exit__ (exception); after the last launch every
// module's globals hold the real module (left-swapped) and the file's
// registries hold nothing the set-up did not (registry-leftover:
// pyvm.State.Leftovers); no deadlock (the scheduler's). A use or an
// exception of the swap machinery in a thread whose abort flag is set
// (its launch already failed) is an after-failure violation, which the
// search steps past, as check's default scope does (faults.go). Not
// checked here: linearizability (the listings' History). A use of
// `cuda` that finds an instance of a class of the file's with its own
// __getattribute__ (proposed's dispatcher) reads through it, the thread
// running it as a task (phUse), and is judged by the object whose
// attribute it returned (pyvm.State.HostAttr); such an object left in a
// module counts as restored at the end when it gives the first host,
// outside any launch, the real module's attribute for every attribute
// the scenario's uses read (World.actsReal), which is how the listing's
// end check counts model.Dispatch, derived from the file's code. Any
// other object of the file's own where the module should be, and the
// interpreter's faults (something it does not model), stop the search:
// both are model-gap, which the command reports as incomplete, never as
// a verdict.
package source
