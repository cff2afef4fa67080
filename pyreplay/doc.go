// Package pyreplay renders a schedule of the model as a standalone Python
// script that replays its interleaving on real threads, and a
// counterexample as a regression test for numba-cuda's own test suite.
// docs/replay.md says what the script and the test do.
//
// # What a caller does
//
//  1. Get a schedule: a check.Report whose verdict is a violation, or
//     that carries a walk without one (sched.Result.Walk: a random or
//     pct search of one run, a replayed schedule); or any schedule of a
//     Program that replays in the model (EmitSchedule).
//  2. Emit (or EmitSchedule) writes the script to an io.Writer; an
//     *Unsupported error says, in one line, what the script cannot
//     force (a free-threaded interleaving, some interrupt landings).
//  3. Run it with python3 (CPython 3.11, 3.12 or 3.13; --target numba:
//     one that imports numba, such as Debian's /usr/bin/python3 with
//     python3-numba): exit 1 when the replay reproduced the model's
//     violation kind (or, for a schedule without one, saw any
//     violation), 0 when it did not, 2 when a turn could not be forced
//     or the target cannot run the schedule.
//
// EmitSource does the same for a schedule of a -source run (source.go):
// its turns are anchored at the user's own instructions, and the script
// installs the file's function in the simulator it runs.
//
// EmitTest renders a counterexample as a test module and its support
// module instead (regression.go); Standin returns the stand-in numba the
// script runs on by default, for running such a test where no numba is
// installed.
//
// # The files the script runs
//
// The scenario's modules as a user writes them (UserCode's rendering,
// usercode.go) and a host program every host thread runs (scenario.go),
// on one of two targets the script's --target option picks: the
// stand-in numba (standin/: a plain-Python transcription of numba-cuda's
// simulator launch code, with the variant's rendition from
// testdata/python as its swap) or the installed numba's simulator.
//
// # How a model step becomes a turn
//
// Every step of the model names its Python line and bytecode(s). The
// script traces its threads (3.11: sys.settrace with opcode events;
// 3.12+: sys.monitoring); the first opcode of a step, at its line, is the
// step's anchor: in the swap, in a statement's line, or at a line of
// kernel.py found by its text (sim.go). A thread that reaches an anchor
// ends the turn it holds and waits until the schedule gives it the next
// one, so one turn is the anchor's opcode and every opcode up to the
// thread's next anchor: exactly the bytecodes the model folds into that
// step. Which statement a step is comes from the run of the body the
// model compiles for the thread (flatten).
//
// # Atomics and shared arrays
//
// The sub-steps of cuda.atomic.OP and cuda.shared.array run in the
// simulator's kernelapi.py, whose lines differ between versions: a turn
// names its line by the method and the line's text (memory.go), which the
// script finds in the kernelapi.py it runs. The judge records what each
// FakeCUDAAtomic and FakeCUDAShared.array call returned and checks, as the
// model does, that some order of each element's atomics explains the
// returned olds and the final value, and that a launch's threads got one
// array per call site (docs/replay.md).
//
// # Interrupts
//
// The model's SIGINT pseudo-thread (-faults interrupt) is replayed as a
// real pending SIGINT in host 0, which is the script's main thread: at
// the instruction whose eval-breaker check the model's interrupt lands at
// (its opcode event, or a generator's return event at its yield), the
// trace function sets SIGINT pending as its last act, CPython raises the
// KeyboardInterrupt at that check, and the script checks from the
// traceback that it did. Only CPython 3.11's checks are the model's:
// later versions refuse a schedule with an interrupt. Landings it cannot
// force yet are refused with an *Unsupported error (docs/replay.md,
// "Interrupts").
package pyreplay
