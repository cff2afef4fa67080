package cli_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
)

// TestSourceOutAndReplay: -source -out DIR writes trace.txt (stdout's
// text), trace.json, trace.html, schedule.txt and summary.json (what
// -json prints); -replay of that schedule or of that trace.json prints
// the same trace again, and refuses, in one line, a file that changed
// since, a file that is gone, a schedule of a run without a violation,
// and the outputs it does not write for a -source schedule yet.
func TestSourceOutAndReplay(t *testing.T) {
	pythonOnly(t, "3.11")
	repoRoot(t)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "kernelapi.py")
	b, err := os.ReadFile("testdata/python/naive.py")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, b, 0o644))
	out := filepath.Join(tmp, "out")

	r := explore(t, "-source", file, "-python", "3.11", "-out", out, "-calls", "2")
	require.Equal(t, cli.ExitViolation, r.code, "stderr: %s", r.stderr)
	trace, err := os.ReadFile(filepath.Join(out, "trace.txt"))
	require.NoError(t, err)
	require.Equal(t, r.stdout, string(trace))
	sched, err := os.ReadFile(filepath.Join(out, "schedule.txt"))
	require.NoError(t, err)
	require.Contains(t, string(sched), "source "+file+":swapped_cuda_module\n")
	require.Contains(t, string(sched), "python 3.11\n")

	// a second run into the same directory asks for -force
	again := explore(t, "-source", file, "-python", "3.11", "-out", out)
	requireUsageError(t, again)
	require.Contains(t, again.stderr, "pass -force to overwrite")

	rep := explore(t, "-replay", filepath.Join(out, "schedule.txt"))
	require.Equal(t, cli.ExitViolation, rep.code, "stderr: %s", rep.stderr)
	// the same trace: the search's output but for how it was found
	// (shrinking) and the command that runs it again, blank lines aside
	strip := func(s string) string {
		var keep []string
		for _, line := range strings.Split(s, "\n") {
			if line != "" && !strings.HasPrefix(line, "shrunk:") && !strings.HasPrefix(line, "rerun:") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	require.Equal(t, strip(r.stdout), strip(rep.stdout))
	require.Contains(t, rep.stdout, "rerun: go run ./cmd/explore -replay "+filepath.Join(out, "schedule.txt"))

	// the replay's own -out
	out2 := filepath.Join(tmp, "out2")
	rep2 := explore(t, "-replay", filepath.Join(out, "schedule.txt"), "-out", out2)
	require.Equal(t, cli.ExitViolation, rep2.code, "stderr: %s", rep2.stderr)
	sched2, err := os.ReadFile(filepath.Join(out2, "schedule.txt"))
	require.NoError(t, err)
	require.Equal(t, string(sched), string(sched2))

	// report.md: -out's, and -report md's of the search and of the
	// replay, each with one story, no path of this machine, and the
	// file by its base name
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	md := explore(t, "-source", file, "-python", "3.11", "-calls", "2", "-report", "md")
	require.Equal(t, cli.ExitViolation, md.code, "stderr: %s", md.stderr)
	require.Equal(t, string(report), md.stdout)
	repMD := explore(t, "-replay", filepath.Join(out, "schedule.txt"), "-report=md")
	require.Equal(t, cli.ExitViolation, repMD.code, "stderr: %s", repMD.stderr)
	for _, text := range []string{string(report), repMD.stdout} {
		require.True(t, strings.HasPrefix(text, "# `swapped_cuda_module` (`kernelapi.py`, CPython 3.11): AttributeError: module 'numba.cuda' has no attribute 'local' ("), firstLine(text))
		require.Empty(t, bugreport.LocalPaths(text))
		require.NotContains(t, text, tmp)
		require.Contains(t, text, "## Trace\n")
		require.Contains(t, text, "`use-saw-real`: Every use of `cuda`")
		require.Contains(t, text, "/usr/bin/python3 replay.py --target numba")
	}
	// the report names -out's replay.py by its digest, inline or attached
	outScript, err := os.ReadFile(filepath.Join(out, "replay.py"))
	require.NoError(t, err)
	require.Contains(t, string(report), fmt.Sprintf("sha256 `%x`", sha256.Sum256(outScript)))
	require.Contains(t, string(report), "swapcheck found it by searching the interleavings of that bytecode")
	require.NotContains(t, string(report), "replayed this trace")
	require.Contains(t, string(report), "the search prints this trace again: `go run ./cmd/explore -calls 2 -python 3.11 -source kernelapi.py`.")
	require.Contains(t, repMD.stdout, "swapcheck replayed this trace from a schedule a search of that bytecode saved")
	require.NotContains(t, repMD.stdout, "found it by searching")
	require.NotContains(t, repMD.stdout, "the search prints this trace again")
	bad := explore(t, "-replay", filepath.Join(out, "schedule.txt"), "-emit-test", filepath.Join(tmp, "test_x.py"))
	requireUsageError(t, bad)
	require.Contains(t, bad.stderr, "is not written for a -source schedule yet")

	// replay.py: -out's, and -emit-python's of the replay, the same
	// script; an existing file is not overwritten without -force
	script, err := os.ReadFile(filepath.Join(out, "replay.py"))
	require.NoError(t, err)
	require.Contains(t, string(script), "Replay of a swapcheck schedule (variant source kernelapi.py:swapped_cuda_module)")
	py := filepath.Join(tmp, "r.py")
	em := explore(t, "-replay", filepath.Join(out, "schedule.txt"), "-emit-python", py)
	require.Equal(t, cli.ExitViolation, em.code, "stderr: %s", em.stderr)
	again2, err := os.ReadFile(py)
	require.NoError(t, err)
	require.Equal(t, string(script), string(again2))
	em = explore(t, "-source", file, "-python", "3.11", "-emit-python", py)
	requireUsageError(t, em)
	require.Contains(t, em.stderr, "already exists; pass -force")

	// -json: the summary a program reads, which -out writes too
	js := explore(t, "-replay", filepath.Join(out, "schedule.txt"), "-json")
	require.Equal(t, cli.ExitViolation, js.code, "stderr: %s", js.stderr)
	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &sum), js.stdout)
	require.Equal(t, "violation", sum["verdict"])
	require.Equal(t, "use-saw-real", sum["kind"])
	require.Equal(t, "replay", sum["strategy"])
	written, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(written, &sum))
	require.Equal(t, "por", sum["strategy"]) // persistent sets of transactions (source.StrategyName)
	require.Equal(t, file, sum["source"])
	require.Len(t, sum["schedule"], len(strings.Fields(strings.TrimPrefix(lastLine(string(sched)), "steps"))))

	// a verified run's schedule has no steps
	ok := filepath.Join(tmp, "ok")
	v := explore(t, "-source", "testdata/python/merged.py", "-python", "3.11", "-out", ok)
	require.Equal(t, cli.ExitOK, v.code, "stderr: %s", v.stderr)
	_, err = os.Stat(filepath.Join(ok, "replay.py"))
	require.True(t, os.IsNotExist(err), "a verified run has no replay.py")
	ve := explore(t, "-source", "testdata/python/merged.py", "-python", "3.11", "-emit-python", filepath.Join(tmp, "v.py"))
	require.Equal(t, cli.ExitUsage, ve.code, "stderr: %s", ve.stderr)
	require.Empty(t, ve.stdout)
	require.Contains(t, lastLine(ve.stderr), "explore: -emit-python: the verdict is verified")
	vj := explore(t, "-source", "testdata/python/merged.py", "-python", "3.11", "-json")
	require.Equal(t, cli.ExitOK, vj.code, "stderr: %s", vj.stderr)
	require.NoError(t, json.Unmarshal([]byte(vj.stdout), &sum), vj.stdout)
	require.Equal(t, "verified", sum["verdict"])
	require.Equal(t, true, sum["complete"])
	require.Contains(t, sum["world"], "1 host, 1 launch of 1 block of 2 GPU threads; no faults")
	gap := explore(t, "-source", "source/testdata/own_object.py", "-python", "3.11", "-json")
	require.Equal(t, cli.ExitIncomplete, gap.code, "stderr: %s", gap.stderr)
	require.NoError(t, json.Unmarshal([]byte(gap.stdout), &sum), gap.stdout)
	require.Equal(t, "incomplete", sum["verdict"])
	require.Equal(t, "model-gap", sum["kind"])
	none := explore(t, "-replay", filepath.Join(ok, "schedule.txt"))
	requireUsageError(t, none)
	require.Contains(t, none.stderr, "nothing to replay")

	sourceTraceFiles(t, tmp, file, out, ok, strip)

	// the file changed, then is gone
	require.NoError(t, os.WriteFile(file, append(b, []byte("\n# edited\n")...), 0o644))
	changed := explore(t, "-replay", filepath.Join(out, "schedule.txt"))
	requireUsageError(t, changed)
	require.Contains(t, changed.stderr, file+" changed since the schedule was written")
	require.NoError(t, os.Remove(file))
	gone := explore(t, "-replay", filepath.Join(out, "schedule.txt"))
	requireUsageError(t, gone)
	require.Contains(t, gone.stderr, "no such file")
}

// lastLine is text's last non-empty line.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestSourceWant: -want KIND looks past the other kinds for KIND: on
// CPython 3.13 numba-cuda's merged swap (merged.py) deadlocks its second
// launch after a Ctrl-C in the scan, where the search without -want stops
// at left-swapped, and says what each thread waits for (the host, the
// lock the interrupt left held); on 3.12 no execution deadlocks, and the other kinds
// it met are named (exit 1: the file has violations). An unknown kind is
// refused in one line.
func TestSourceWant(t *testing.T) {
	pythonOnly(t, "3.12", "3.13")
	repoRoot(t)
	args := []string{"-source", "testdata/python/merged.py", "-scenario", "testdata/scenarios/interrupt.txt"}
	r := explore(t, append(args, "-python", "3.13", "-want", "deadlock")...)
	require.Equal(t, cli.ExitViolation, r.code, "stderr: %s", r.stderr)
	flat := strings.Join(strings.Fields(r.stdout), " ")
	require.Contains(t, flat, "verdict: violation deadlock")
	require.Contains(t, flat, "host: merged.py:24 with lock: [BEFORE_WITH]: the lock is held, and no thread that can move will release it")
	require.Contains(t, flat, "L2.B0.T0: its start (t.start()), which the host has not reached")
	require.Contains(t, flat, "(-want deadlock: the search met left-swapped, use-saw-other-fake first")
	require.Contains(t, flat, "SIGINT KeyboardInterrupt")
	require.Contains(t, flat, "JUMP_BACKWARD")

	r = explore(t, append(args, "-python", "3.12", "-want", "deadlock")...)
	require.Equal(t, cli.ExitViolation, r.code, "stderr: %s", r.stderr)
	flat = strings.Join(strings.Fields(r.stdout), " ")
	require.Contains(t, flat, "verdict: incomplete: no execution reached deadlock before another violation")
	require.Contains(t, flat, "it met left-swapped, use-saw-other-fake")

	bad := explore(t, append(args, "-python", "3.12", "-want", "bogus")...)
	requireUsageError(t, bad)
	require.Contains(t, bad.stderr, "-want bogus: not a kind -source reports")
}

// firstLine is text's first line.
func firstLine(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	return line
}

// sourceTraceFiles: trace.json and trace.html of -out (out: naive.py's
// violation, as file; ok: merged.py verified) render the trace that
// trace.txt shows; -replay of the trace.json prints it again, and
// -report html prints the page -out writes.
func sourceTraceFiles(t *testing.T, tmp, file, out, ok string, strip func(string) string) {
	t.Helper()
	tr := readSourceTrace(t, out)
	require.Equal(t, check.SourceTraceSchema, tr.Schema)
	require.Equal(t, file, tr.Source.File)
	require.Equal(t, "swapped_cuda_module", tr.Source.Function)
	require.Equal(t, "3.11", tr.Source.Python)
	require.Equal(t, "violation", tr.Verdict)
	require.NotNil(t, tr.Violation)
	require.Equal(t, "use-saw-real", tr.Violation.Kind)
	require.Len(t, tr.Steps, len(tr.Schedule))
	require.Equal(t, len(tr.Steps), tr.Violation.Step)
	sawFile := false
	for i, s := range tr.Steps {
		require.Equal(t, tr.Schedule[i], s.Thread)
		require.Equal(t, tr.Threads[s.Thread], s.ThreadName)
		for _, u := range s.Units {
			if strings.HasPrefix(u.Where, "kernelapi.py:") {
				sawFile = true
				require.Equal(t, fmt.Sprintf("kernelapi.py:%d", u.Line), u.Where)
				require.NotEmpty(t, u.Bytecode)
			}
		}
	}
	require.True(t, sawFile, "no step names a line of the file")
	sched, err := os.ReadFile(filepath.Join(out, "schedule.txt"))
	require.NoError(t, err)
	want := "steps"
	for _, n := range tr.Schedule {
		want += fmt.Sprintf(" %d", n)
	}
	require.Equal(t, want, lastLine(string(sched)), "trace.json and schedule.txt hold one schedule")

	// -replay of the trace.json: schedule.txt's replay, but for the
	// command that runs it again
	fromJSON := explore(t, "-replay", filepath.Join(out, "trace.json"))
	require.Equal(t, cli.ExitViolation, fromJSON.code, "stderr: %s", fromJSON.stderr)
	fromTxt := explore(t, "-replay", filepath.Join(out, "schedule.txt"))
	require.Equal(t, strip(fromTxt.stdout), strip(fromJSON.stdout))
	require.Contains(t, fromJSON.stdout, "rerun: go run ./cmd/explore -replay "+filepath.Join(out, "trace.json"))

	// trace.html: the page of the same trace, no path of this machine
	page, err := os.ReadFile(filepath.Join(out, "trace.html"))
	require.NoError(t, err)
	html := string(page)
	require.Contains(t, html, "<title>swapcheck: swapped_cuda_module (kernelapi.py, CPython 3.11, gil): violation use-saw-real</title>")
	require.Equal(t, len(tr.Steps), strings.Count(html, `<tr id="step-`))
	require.Equal(t, 1, strings.Count(html, `class="violating"`))
	require.Contains(t, html, "<code>kernelapi.py:")
	require.Contains(t, html, `<pre id="replay">go run ./cmd/explore -replay trace.json</pre>`)
	require.Empty(t, bugreport.LocalPaths(html), "the page names no path of this machine")
	require.NotContains(t, html, tmp)
	rep := explore(t, "-source", file, "-python", "3.11", "-calls", "2", "-report", "html")
	require.Equal(t, cli.ExitViolation, rep.code, "stderr: %s", rep.stderr)
	require.Equal(t, html, rep.stdout, "-report html prints the page -out writes")

	// a verified run's: its coverage, no steps
	v := readSourceTrace(t, ok)
	require.Equal(t, "verified", v.Verdict)
	require.Empty(t, v.Steps)
	require.Nil(t, v.Violation)
	require.Contains(t, v.Coverage, "1 host, 1 launch of 1 block of 2 GPU threads; no faults")
	page, err = os.ReadFile(filepath.Join(ok, "trace.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), `<dd id="verdict">verified</dd>`)
	require.NotContains(t, string(page), `id="timeline"`)
	none := explore(t, "-replay", filepath.Join(ok, "trace.json"))
	requireUsageError(t, none)
	require.Contains(t, none.stderr, "nothing to replay")

	// a model gap: its steps, under model_gap, not a violation
	gapDir := filepath.Join(tmp, "gap")
	gap := explore(t, "-source", "source/testdata/own_object.py", "-python", "3.11", "-out", gapDir)
	require.Equal(t, cli.ExitIncomplete, gap.code, "stderr: %s", gap.stderr)
	g := readSourceTrace(t, gapDir)
	require.Equal(t, "incomplete", g.Verdict)
	require.Nil(t, g.Violation)
	require.NotNil(t, g.ModelGap)
	require.Equal(t, "model-gap", g.ModelGap.Kind)
	require.NotEmpty(t, g.Steps)

	// a trace.json that is not one is refused in one line
	data, err := os.ReadFile(filepath.Join(gapDir, "trace.json"))
	require.NoError(t, err)
	bad := filepath.Join(tmp, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(string(data), `"format": 1`, `"format": 7`, 1)), 0o644))
	r := explore(t, "-replay", bad)
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "the -source trace.json is of format 7")
	// its fields are checked as schedule.txt's are
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(string(data), `"python": "3.11"`, `"python": "eleven"`, 1)), 0o644))
	r = explore(t, "-replay", bad)
	requireUsageError(t, r)
	require.Contains(t, r.stderr, `the -source trace.json's python "eleven": want a version such as 3.12`)
}

// readSourceTrace reads dir's trace.json.
func readSourceTrace(t *testing.T, dir string) check.SourceTrace {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	require.NoError(t, err)
	var tr check.SourceTrace
	require.NoError(t, json.Unmarshal(data, &tr))
	return tr
}

// TestSourceThreadContextAndHang: -thread-context is recorded in
// schedule.txt and trace.json and replays from each to the same deadlock
// (merged-fix's wait broken to have no timeout, two hosts); replay.py is
// not written for it, and stderr says why. A hang (the wait broken to
// spin with the lock held) is a violation of its own kind, not shrunk.
func TestSourceThreadContextAndHang(t *testing.T) {
	pythonOnly(t, "3.12")
	repoRoot(t)
	out := filepath.Join(t.TempDir(), "out")
	r := explore(t, "-source", "source/testdata/mergedfix_nowake.py", "-python", "3.12", "-hosts", "2", "-thread-context", "-out", out)
	require.Equal(t, cli.ExitViolation, r.code, "stderr: %s", r.stderr)
	require.Contains(t, r.stdout, "verdict: violation deadlock")
	require.Contains(t, r.stderr, "no replay.py in "+out+": ")
	require.Contains(t, r.stderr, "-thread-context")
	sched, err := os.ReadFile(filepath.Join(out, "schedule.txt"))
	require.NoError(t, err)
	require.Contains(t, string(sched), "\nkernel thread-context\n")
	require.Equal(t, "thread-context", readSourceTrace(t, out).Kernel)
	for _, f := range []string{"schedule.txt", "trace.json"} {
		rep := explore(t, "-replay", filepath.Join(out, f))
		require.Equal(t, cli.ExitViolation, rep.code, "%s: stderr: %s", f, rep.stderr)
		require.Contains(t, lastLine(rep.stderr), "violation deadlock", f)
	}

	h := explore(t, "-source", "source/testdata/mergedfix_spin.py", "-python", "3.12", "-hosts", "2", "-thread-context")
	require.Equal(t, cli.ExitViolation, h.code, "stderr: %s", h.stderr)
	require.Contains(t, h.stdout, "verdict: violation hang")
	require.Contains(t, h.stdout, "from here no execution can end")
	require.Contains(t, h.stdout, "not shrunk: shrinking searches for a failing execution")
}
