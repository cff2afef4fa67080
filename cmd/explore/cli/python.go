package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"swapcheck/check"
	"swapcheck/pyreplay"
	"swapcheck/sched"
)

// replayScript is the name of the Python replay -out writes.
const replayScript = "replay.py"

func registerPythonFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.emitPython, "emit-python", "", "write the counterexample (or the walk of -runs 1 without one) as a standalone Python script `FILE` that replays it on real threads (docs/replay.md); -force overwrites FILE")
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

// emitPython writes the replay script of the run's schedule (its
// counterexample, or the walk of a random or pct search of one run, or
// of a replayed schedule, that found no violation): to -emit-python's
// file (refused when the run has no schedule, or the replay cannot force
// it) and, with -out, to DIR/replay.py (skipped, with a line on stderr,
// when the replay cannot force it).
func emitPython(o *options, rep *check.Report, stderr io.Writer) error {
	replayable := rep.Result.Verdict == sched.Violation || len(rep.Result.Walk) > 0
	if o.emitPython != "" {
		if !replayable {
			return usagef("-emit-python: the verdict is %s and no schedule comes with it (a random or pct search with -runs 1 has one, its walk; -replay-random N replays N walks)", rep.Result.Verdict)
		}
		if err := writeScript(o.emitPython, rep); err != nil {
			return usagef("-emit-python: %v", err)
		}
	}
	if o.out != "" && replayable {
		err := writeScript(filepath.Join(o.out, replayScript), rep)
		var un *pyreplay.Unsupported
		if errors.As(err, &un) {
			fmt.Fprintf(stderr, "explore: no %s in %s: %v\n", replayScript, o.out, err)
			return nil
		}
		return err
	}
	return nil
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
