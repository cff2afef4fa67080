// Package bugreport renders a counterexample for people: as a bug report
// in Markdown, ready to paste into a GitHub issue (Write: explore -report
// md, DIR/report.md), and as one standalone HTML page (WriteHTML: explore
// -report html, DIR/trace.html).
//
// The report says what breaks and the error a user sees, gives the
// scenario as the Python a user writes with numba.cuda
// (pyreplay.UserCode), the trace (check.Trace, the same rendering as
// trace.txt), the invariant broken, and the commands that replay it in Go
// and in Python, with the trace.json they read.
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
//  2. Call Write or WriteHTML with the command that replays it (the
//     trace's replay line); Write refuses anything but a violation.
//
// It sits above check and pyreplay (cmd -> bugreport -> pyreplay -> check)
// because it needs both.
package bugreport
