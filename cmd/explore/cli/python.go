package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"swapcheck/check"
	"swapcheck/pyreplay"
	"swapcheck/sched"
)

// replayScript is the name of the Python replay -out writes.
const replayScript = "replay.py"

func registerPythonFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.emitPython, "emit-python", "", "write the counterexample as a standalone Python 3.11+ script `FILE` that replays it on real threads (docs/replay.md); -force overwrites FILE")
}

// checkEmitPath refuses, before a search, to overwrite -emit-python's file
// unless forced.
func checkEmitPath(o *options) error {
	if o.emitPython == "" || o.force {
		return nil
	}
	if _, err := os.Stat(o.emitPython); err == nil {
		return usagef("-emit-python %s already exists; pass -force to overwrite it", o.emitPython)
	}
	return nil
}

// emitPython writes the replay script: to -emit-python's file (refused
// when the verdict is not a violation, or the replay does not support the
// scenario) and, with -out, to DIR/replay.py (skipped, with a line on
// stderr, when the replay does not support it).
func emitPython(o *options, rep *check.Report) error {
	if o.emitPython == "" {
		return nil
	}
	if rep.Result.Verdict != sched.Violation {
		return usagef("-emit-python: the verdict is %s, not a violation: there is no counterexample to replay", rep.Result.Verdict)
	}
	if err := writeScript(o.emitPython, rep); err != nil {
		return usagef("-emit-python: %v", err)
	}
	return nil
}

// writeReplayScript stages -out's replay.py for a violation; one the
// replay cannot force is left out, and stderr says why.
func writeReplayScript(st *stagedOut, rep *check.Report, stderr io.Writer) error {
	if rep.Result.Verdict != sched.Violation {
		return nil
	}
	err := writeScript(st.path(replayScript), rep)
	var un *pyreplay.Unsupported
	if errors.As(err, &un) {
		fmt.Fprintf(stderr, "explore: no %s in %s: %v\n", replayScript, st.dir, err)
		return nil
	}
	return err
}

// writeScript renders the script first, so that a refusal leaves path
// as it was.
func writeScript(path string, rep *check.Report) error {
	var b bytes.Buffer
	if err := pyreplay.Emit(&b, rep); err != nil {
		return err
	}
	return unwrapPath(os.WriteFile(path, b.Bytes(), 0o644))
}
