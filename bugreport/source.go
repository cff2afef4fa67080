package bugreport

import (
	"fmt"
	"io"
	"strings"

	"swapcheck/check"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
)

// SourceReport is a counterexample that -source found in a user's own
// file, as WriteSource renders it: what the run knows, in words and
// text. Nothing in it may name a path of the reporter's machine (File is
// the file's base name; Search is left out by WriteSource when it names
// one).
type SourceReport struct {
	File     string // the file's base name: kernelapi.py
	Function string // swapped_cuda_module
	SHA256   string // of the file's bytes
	Python   string // the CPython that compiled it: 3.12.1
	// Atomicity is the mode the search ran in (gil, gil-breaker).
	Atomicity string
	Scenario  *scenario.Scenario
	// Kind, Thread and Message are the violation's.
	Kind, Thread, Message string
	// Shrunk is what shrinking made of the scenario ("" when it did not
	// run, "nothing: ..." when it found nothing smaller).
	Shrunk string
	States int64 // the states the search stored
	// Replayed: the trace is a saved schedule's, replayed (explore
	// -replay schedule.txt), not a search's.
	Replayed bool
	// Steps and Preemptions count the trace's steps; StepMeaning says
	// what a step is; Table is the trace's table (trace.txt's).
	Steps, Preemptions int
	StepMeaning        string
	Table              string
	// Search is the command that finds the trace again.
	Search string
	// Script is replay.py; when it is nil, NoScript says in one line why
	// the replay cannot force this trace.
	Script   []byte
	NoScript string
}

// WriteSource writes r as a bug report in Markdown, to file against the
// code the file is (numba-cuda's kernelapi.py at some commit, numba's, a
// patched copy): what breaks, the scenario as the Python a user writes,
// the trace of the file's own instructions, the invariant, and the
// replay, inline (packed) when the report fits an issue's body, else
// named as an attachment. The story is one: a search of the file's
// bytecode (-source).
func WriteSource(w io.Writer, r SourceReport) error {
	var script *packedScript
	if r.Script != nil {
		var err error
		if script, err = pack(r.Script); err != nil {
			return err
		}
	}
	text := writeSource(r, script, script != nil)
	if script != nil && len([]rune(text)) > maxIssueBody {
		text = writeSource(r, script, false)
	}
	_, err := io.WriteString(w, text)
	return err
}

func writeSource(r SourceReport, script *packedScript, inline bool) string {
	v := &check.TraceViolation{Kind: r.Kind, Thread: r.Thread, Message: r.Message}
	sc := r.Scenario
	var b strings.Builder
	fmt.Fprintf(&b, "# `%s` (`%s`, CPython %s): %s (%s)\n\n", r.Function, r.File, feature(r.Python), headline(v), shape(sc))
	b.WriteString("## What breaks\n\n")
	fmt.Fprintf(&b, "Under the CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`), `%s` as `%s` has it (sha256 `%s`), compiled by CPython %s, fails when %s. ",
		r.Function, r.File, r.SHA256, r.Python, situation(sc))
	if r.Replayed {
		fmt.Fprintf(&b, "swapcheck replayed this trace from a schedule a search of that bytecode saved (`explore -replay schedule.txt`, atomicity `%s`); no search ran.\n\n", r.Atomicity)
	} else {
		fmt.Fprintf(&b, "swapcheck found it by searching the interleavings of that bytecode in the simulator's launch (`explore -source`, atomicity `%s`, %s stored).\n\n",
			r.Atomicity, check.Count(r.States, "state"))
	}
	fmt.Fprintf(&b, "%s\n\n", check.KindSeen[r.Kind])
	if line := userError(v); line != "" {
		fmt.Fprintf(&b, "The error thread %s raises, as numba's simulator words it:\n\n", v.Thread)
		b.WriteString(fence("text", line+"\n"))
		b.WriteString("\n")
	}
	b.WriteString("The model's verdict:\n\n")
	b.WriteString(fence("text", "violation "+r.Kind+"\n"+r.Message+"\n"))

	b.WriteString("\n## Minimal scenario\n\n")
	force := "the replay at the end forces it"
	if script == nil {
		force = "the trace below shows it"
	}
	fmt.Fprintf(&b, "The Python a user writes: %s. On real threads the failure needs the interleaving of the trace below, so a plain run fails rarely; %s.\n\n", situation(sc), force)
	if line := pyreplay.Symptom(sc); line != "" {
		b.WriteString(line + "\n\n")
	}
	if rest, ok := strings.CutPrefix(r.Shrunk, "nothing: "); ok {
		fmt.Fprintf(&b, "swapcheck's shrinking (a smaller scenario with the same violation kind) left the scenario as its search found it: %s.\n\n", rest)
	} else if r.Shrunk != "" && !strings.HasPrefix(r.Shrunk, "not shrunk") {
		fmt.Fprintf(&b, "What swapcheck's shrinking (a smaller scenario with the same violation kind) made smaller: %s.\n\n", r.Shrunk)
	}
	writeUserCode(&b, sc, sc.String())

	b.WriteString("\n## Trace\n\n")
	fmt.Fprintf(&b, "%s (%s), for atomicity `%s`; %s. `>>` marks the failing step; a cell names the line of `%s` and, in brackets, its CPython %s opcodes; a line of `kernel.py` or of the scenario's code is the simulator's, and `->` says what the step changed.\n\n",
		check.Count(r.Steps, "step"), check.Count(r.Preemptions, "preemption"), r.Atomicity, r.StepMeaning, r.File, feature(r.Python))
	b.WriteString(fence("text", r.Table))

	b.WriteString("\n## Invariant violated\n\n")
	fmt.Fprintf(&b, "`%s`: %s\n", r.Kind, check.KindInvariant[r.Kind])

	b.WriteString("\n## Replay\n\n")
	switch {
	case script == nil:
		fmt.Fprintf(&b, "There is no Python replay of this trace: %s.\n", r.NoScript)
	case inline:
		fmt.Fprintf(&b, "The Python replay needs only CPython %s and, to run on numba's own simulator, numba. It carries `%s`'s function and the top-level statements it reads, installs them in place of the simulator's `swapped_cuda_module`, and checks that they compile to the bytecode the trace ran. Unpack it from the block below (`replay.py`, %d bytes, sha256 `%s`, packed with zlib and base64 to fit an issue; unpacked it is plain Python to read before running it):\n\n",
			feature(r.Python), r.File, script.size, script.sha256)
		script.writeDetails(&b)
		b.WriteString("(`explore -source ... -out DIR` writes the same file as `DIR/replay.py` beside `DIR/report.md`, to attach instead.)\n\n")
		b.WriteString(sourceReplayCommands(r))
	default:
		fmt.Fprintf(&b, "The Python replay (`replay.py`, %d bytes, sha256 `%s`) does not fit in an issue's body beside this report: attach it; `explore -source ... -out DIR` writes it as `DIR/replay.py` beside `DIR/report.md`.\n\n",
			script.size, script.sha256)
		b.WriteString(sourceReplayCommands(r))
	}
	if r.Search != "" && portable(r.Search) {
		fmt.Fprintf(&b, "\nIn a checkout of swapcheck (Go), with `%s` beside it, the search prints this trace again: `%s`.\n", r.File, r.Search)
	}
	return b.String()
}

// sourceReplayCommands are the commands that run a -source replay, with
// the sentence that says where each runs.
func sourceReplayCommands(r SourceReport) string {
	var b strings.Builder
	if feature(r.Python) == "3.11" {
		b.WriteString("Run it on numba's CUDA simulator (Debian's `python3-numba`, 0.56.4, is for `/usr/bin/python3`), the file's function in place of the installed swap, the launch machinery numba's own:\n\n")
		b.WriteString(fence("sh", "/usr/bin/python3 replay.py --target numba\n"))
		b.WriteString("\nor, where no numba is installed, on the stand-in simulator the script carries (swapcheck's transcription of numba-cuda's launch code):\n\n")
		b.WriteString(fence("sh", "python3 replay.py\n"))
	} else {
		fmt.Fprintf(&b, "Run it with CPython %s, whose bytecode the trace ran (the script refuses another version), on the stand-in simulator it carries (swapcheck's transcription of numba-cuda's launch code; no numba released for this CPython has a simulator the script can check against):\n\n", feature(r.Python))
		b.WriteString(fence("sh", "python"+feature(r.Python)+" replay.py\n"))
	}
	b.WriteString("\nIt prints each forced turn's outcome and what the threads saw, and exits 1 when the violation happened again, 0 when it did not, 2 when a turn could not be forced or a thread left the trace's path through the file (`docs/replay.md` in swapcheck says how the script forces the interleaving).\n")
	return b.String()
}

// feature is a CPython version's feature release: 3.12.1 -> 3.12.
func feature(version string) string {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return version
	}
	return parts[0] + "." + parts[1]
}
