// Package pyvm is a CPython bytecode interpreter, for 3.11, 3.12 and 3.13,
// for the code a swap function of numba's CUDA simulator runs: it is what
// will let swapcheck check a maintainer's own kernelapi.py, as CPython
// compiled it for the Python they run, instead of a listing translated by
// hand (issue 29's -source). It imports nothing of the project; package
// pysource feeds it code objects that a real CPython compiled.
//
// # What it models
//
// One Step runs one instruction of one thread (or one step of a C-level
// callee: a contextlib context manager's __enter__, a defaultdict's
// __missing__), with CPython's own semantics for what these functions
// use: None, bool, int, str, tuple, list, dict (insertion order, the
// "changed size during iteration" error), collections.defaultdict,
// functions, closures and cells, generators and contextlib.contextmanager,
// modules (the module's globals dict is the one the swap mutates),
// threading.Lock and RLock, threading.current_thread() (each thread's
// object, whose attributes the embedder sets: a BlockThread's abort
// flag), threading.Condition (threads.go: with, acquire, release, wait
// with and without a timeout, notify and notify_all, its waiters as
// threading.py keeps them; wait_for is refused), float constants (carried, compared, tested; arithmetic on
// them is unsupported), exceptions with the exception table, and the
// builtins the simulator's code calls (any and all among them). Each version has its own dispatch
// table (ops_table.go): comprehensions inlined in 3.12, PRECALL gone, the
// 3.13 opcodes. A module the code imports that is not one of the stand-ins
// (collections, contextlib, threading) is a stand-in module whose
// attributes are opaque objects, which the code may bind but not use
// (imports.go); the embedder supplies numba.cuda, the device
// modules, their functions and the fakes as host objects (drive.go).
//
// A Step reports what it did (StepInfo): the shared locations it read and
// wrote (footprint.go: a thread's own unpublished objects are never
// reported, a read of a location that never changes after the set-up is
// Const), whether it ended at an eval-breaker check of that version (where
// the GIL may pass and an asynchronous exception may land: Interrupt),
// whether it blocked on a lock, and whether it hit something the
// interpreter does not model (Fault: the thread stops, nothing is
// guessed).
//
// Before anything runs, Load's refusal pass (refuse.go) checks every code
// object that can run for an opcode, constant, builtin, global or
// attribute that is not supported, and refuses the file naming file:line,
// what is missing and the version.
//
// # How it is checked
//
// Against real CPython, for every version found on the machine
// (pysource.Find: PATH, then pyenv): the corpus of testdata/opcodes.txt
// (every supported opcode, each case run by CPython and by the
// interpreter, which must agree on return values, exceptions and
// globals: TestOpcodes); rapid's random programs of the same subset
// (TestDifferentialRandom; 100 a run, 2000 with SWAPCHECK_LONG=1); every
// variant's swap function in testdata/python run alone
// (TestSwapFunctionsRunAlone); and numba-cuda's own kernelapi.py at each
// commit of the fix and at HEAD (TestUpstreamFilesLoad, given a clone in
// SWAPCHECK_NUMBA_CUDA_REPO). Where a step ends at an eval-breaker check
// agrees, on 3.11, 3.12 and 3.13, with where
// testdata/cpython/switchpoints.py saw CPython's interrupts land in each
// variant's swap (TestBreakerChecksMatchCPython, against
// switchpoints.golden.txt, switchpoints-3.12.golden.txt and
// switchpoints-3.13.golden.txt). What an
// interrupt at such a check leaves (the locks held, the module's cuda)
// agrees with CPython 3.11, 3.12 and 3.13 at every landing
// testdata/cpython/interrupt_unwind.py recorded (TestInterruptUnwindsAsCPython):
// 3.13 searches the exception table for a backward jump itself, not the
// instruction before its target, and in 3.13.0 an interrupt at an inlined
// comprehension's skipping arm leaves the with around it with its lock
// held (Program.Interrupt).
//
// # What is not done
//
// A State has a canonical key (State.AppendKey, key.go: heap objects
// numbered by a deterministic walk from the threads and modules, set-up
// objects by their index and written only when changed), which
// TestKeyIsSound holds to a rendering of every thread's frames and the
// module over random schedules of two threads (as many keys as
// renderings, and equal keys step alike), and
// TestKeyIgnoresAllocationOrderAndGarbage to allocation order and
// garbage. Symmetry between alike threads is the embedder's to apply.
//
// The model does not use it yet: its steps are not yet the model's steps,
// and the command has no -source. A free-threaded build (3.13t) is recognised by
// pysource but runs as under the GIL, but for the defaultdict miss
// (Options.Miss).
package pyvm
