// Package pyreplay renders a counterexample as a standalone Python 3.11+
// script that replays its interleaving on real threads, on one of two
// targets the script's --target option picks: the rendition (the
// variant's Python from testdata/python, with a small launch harness of
// its own) or numba (the installed numba's real CUDA simulator, the
// scenario's modules written out as files with @cuda.jit functions; its
// own swapped_cuda_module, or with --swap rendition the variant's in its
// place). docs/replay.md says what the script does.
//
// # What a caller does
//
//  1. Get a schedule: a check.Report whose verdict is a violation (Emit),
//     or any schedule of a Program that replays in the model
//     (EmitSchedule, which tests use for schedules without a violation).
//  2. Emit writes the script to an io.Writer; an *Unsupported error says,
//     in one line, which feature of the scenario, atomicity or violation
//     the script cannot replay yet.
//  3. Run it with python3 (--target numba: a python3 that imports numba,
//     such as Debian's /usr/bin/python3 with python3-numba): exit 1 when
//     the replay reproduced the model's violation kind (or, for a
//     schedule without one, saw any violation), 0 when it did not, 2 when
//     a turn could not be forced or the target cannot run the trace.
//
// # How a model step becomes a turn
//
// Every step of the model names its Python line and bytecode(s). The
// script traces its threads with sys.settrace and per-opcode events
// (frame.f_trace_opcodes); the first opcode of a step, at its line, is the
// step's anchor. A thread that reaches an anchor ends the turn it holds and
// waits until the schedule gives it the next one, so one turn is the
// anchor's opcode and every opcode up to the thread's next anchor: exactly
// the bytecodes the model folds into that step.
//
// # Interrupts
//
// The model's SIGINT pseudo-thread (-faults interrupt) is replayed as a
// real pending SIGINT in the host, which is the script's main thread: at
// the instruction whose eval-breaker check the model's interrupt lands at
// (its opcode event, or a generator's return event at its yield), the
// trace function sets SIGINT pending as its last act, CPython raises the
// KeyboardInterrupt at that check, and the script checks from the
// traceback that it did. Landings it cannot force yet are refused with
// an *Unsupported error (docs/replay.md, "Interrupts").
package pyreplay
