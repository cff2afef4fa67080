// Package bugreport renders a counterexample as a bug report in Markdown,
// ready to paste into a GitHub issue (explore -report md, DIR/report.md):
// what breaks and the error a user sees, the scenario as the Python a user
// writes with numba.cuda (pyreplay.UserCode), the trace (check.Trace, the
// same rendering as trace.txt), the invariant broken, and the commands
// that replay it in Go and in Python, with the trace.json they read.
//
// # What a caller does
//
//  1. Get a check.Report whose verdict is a violation.
//  2. Call Write with the command that replays it (the trace's replay
//     line); anything but a violation is an error.
//
// It sits above check and pyreplay (cmd -> bugreport -> pyreplay -> check)
// because it needs both.
package bugreport
