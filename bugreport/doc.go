// Package bugreport renders a counterexample for people: as a bug report
// in Markdown, ready to paste into a GitHub issue (Write: explore -report
// md, DIR/report.md), and as one standalone HTML page (WriteHTML: explore
// -report html, DIR/trace.html).
//
// The report says what breaks and the error a user sees, gives the
// scenario as the Python a user writes with numba.cuda
// (pyreplay.UserCode), the trace (check.Trace, the same rendering as
// trace.txt, each line of a variant's rendition followed by numba-cuda's
// kernelapi.py line at the variant's commit), the invariant broken, the
// Python replay (pyreplay.Emit's script, packed inline, to run with
// Python and numba alone), and the commands that replay it in Go, with
// the trace.json they read. A maintainer files it without editing:
//
//   - one account of where the trace came from: a search (and which), the
//     corpus (no search ran), or a replay of a saved trace (origin.go);
//   - no path of the reporter's machine (LocalPaths finds them; tests
//     check every report);
//   - numba-cuda's file and line beside swapcheck's (upstream.go, from the
//     rendition's pin, swapcheck.Upstream); swapcheck's own code says it
//     has none;
//   - a trace CPython 3.11 can run: a gil trace that switches where 3.11
//     cannot is replaced by gil-breaker's when the same search under it
//     ends in the same violation kind, else the report says in words which
//     switch 3.11 cannot make (realswitch.go);
//   - the replay inline, or, when it would make the report longer than an
//     issue body takes, named as an attachment (replayscript.go).
//
// The page renders the same check.Trace: the head, the scenario, a
// timeline with one lane per thread and the violating step marked, and
// the replay command; its style and script are inline and it loads
// nothing. When porcupine rejects the counterexample's history of swaps
// and reads (check.VisualizeLinearizability), porcupine's own
// visualization of it follows the timeline, in a frame.
//
// # What a caller does
//
//  1. Get a check.Report; for Write its verdict must be a violation.
//  2. Call Write with the search command that finds it again, naming no
//     file of this machine ("" for a replay or a corpus's trace), or
//     WriteHTML with the trace's replay line; Write refuses anything but
//     a violation, and may search once more (under gil-breaker).
//
// It sits above check and pyreplay (cmd -> bugreport -> pyreplay -> check)
// because it needs both.
package bugreport
