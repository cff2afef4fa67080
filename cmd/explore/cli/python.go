package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"swapcheck/check"
	"swapcheck/pyreplay"
	"swapcheck/sched"
)

// replayScript is the name of the Python replay -out writes.
const replayScript = "replay.py"

// checkEmitPath refuses, before a search, to overwrite -emit-python's or
// -emit-test's files unless forced, and a test file pytest would not
// collect.
func checkEmitPath(o *options) error {
	if o.emitTest != "" {
		base := filepath.Base(o.emitTest)
		if !strings.HasPrefix(base, "test_") || !strings.HasSuffix(base, ".py") {
			return usagef("-emit-test %s: name the test test_NAME.py, as pytest collects it", o.emitTest)
		}
	}
	if o.force {
		return nil
	}
	if o.emitPython != "" {
		if _, err := os.Stat(o.emitPython); err == nil {
			return usagef("-emit-python %s already exists; pass -force to overwrite it", o.emitPython)
		}
	}
	if o.emitTest != "" {
		for _, f := range []string{o.emitTest, supportPath(o.emitTest)} {
			if _, err := os.Stat(f); err == nil {
				return usagef("-emit-test: %s already exists; pass -force to overwrite it", f)
			}
		}
	}
	return nil
}

// supportPath is the support module's file beside test file test.
func supportPath(test string) string {
	return filepath.Join(filepath.Dir(test), "support_"+strings.TrimPrefix(filepath.Base(test), "test_"))
}

// emitTest writes the regression test of the run's counterexample
// (refused in one line when there is none, or the test cannot force it).
func emitTest(o *options, rep *check.Report) error {
	if o.emitTest == "" {
		return nil
	}
	files, err := pyreplay.EmitTest(rep, filepath.Base(o.emitTest))
	if err != nil {
		return usagef("-emit-test: %v", err)
	}
	if err := os.WriteFile(o.emitTest, []byte(files.Test.Text), 0o644); err != nil {
		return usagef("-emit-test: %v", unwrapPath(err))
	}
	if err := os.WriteFile(supportPath(o.emitTest), []byte(files.Support.Text), 0o644); err != nil {
		return usagef("-emit-test: %v", unwrapPath(err))
	}
	return nil
}

// replayable reports whether the run has a schedule to replay: its
// counterexample, or the walk of a random or pct search of one run (or
// of a replayed schedule) that found no violation.
func replayable(rep *check.Report) bool {
	return rep.Result.Verdict == sched.Violation || len(rep.Result.Walk) > 0
}

// emitPython writes the replay script of the run's schedule to
// -emit-python's file (refused when the run has no schedule, or the
// replay cannot force it).
func emitPython(o *options, rep *check.Report) error {
	if o.emitPython == "" {
		return nil
	}
	if !replayable(rep) {
		return usagef("-emit-python: the verdict is %s and no schedule comes with it (a random or pct search with -runs 1 has one, its walk; -replay-random N replays N walks)", rep.Result.Verdict)
	}
	if err := writeScript(o.emitPython, rep); err != nil {
		return usagef("-emit-python: %v", err)
	}
	return nil
}

// writeReplayScript stages -out's replay.py for a run with a schedule
// (replayable); one the replay cannot force is left out, and stderr says
// why.
func writeReplayScript(st *stagedOut, rep *check.Report, stderr io.Writer) error {
	if !replayable(rep) {
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
