package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/pyreplay"
	"swapcheck/pysource"
	"swapcheck/sched"
	"swapcheck/source"
)

// A -source run's files: -out DIR writes trace.txt (what stdout shows
// without -json), trace.json and trace.html (check.SourceTrace, which
// trace.txt's table renders too), schedule.txt (source.WriteSchedule:
// the file's path and digest, the function, the CPython version, the
// atomicity, the scenario and the steps) and summary.json (what -json
// prints), and -replay of that schedule.txt or trace.json runs its steps
// again on the same file, which it refuses when the file's bytes changed
// since.

// writeSourceOut writes a -source run's files into dir, all or none;
// with a violation, its replay.py too, unless the replay cannot force it
// (stderr says why).
func writeSourceOut(dir string, r *sourceRun, res sched.Result, t *check.SourceTrace, sum sourceSummary, stderr io.Writer) error {
	st, err := stageOut(dir)
	if err != nil {
		return err
	}
	defer st.abort()
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"trace.txt", func(w io.Writer) error { return r.writeText(w, res, t) }},
		{"trace.json", t.WriteJSON},
		{"trace.html", func(w io.Writer) error { return bugreport.WriteSourceHTML(w, t, stepMeaning(r.prog)) }},
	} {
		if err := st.write(f.name, f.write); err != nil {
			return fmt.Errorf("-out %s: %v", dir, err)
		}
	}
	steps := res.Schedule
	if res.Failure != nil && res.Failure.Kind == source.KindModelGap {
		steps = nil // no verdict on the file: nothing to replay
	}
	if err := st.write("schedule.txt", func(w io.Writer) error { return source.WriteSchedule(w, r.prog, sum.SHA256, steps) }); err != nil {
		return fmt.Errorf("-out %s: %v", dir, err)
	}
	if err := st.write("summary.json", sum.writeJSON); err != nil {
		return fmt.Errorf("-out %s: %v", dir, err)
	}
	if steps != nil && res.Verdict == sched.Violation {
		script, noScript, err := r.script(res)
		switch {
		case err != nil:
			return fmt.Errorf("-out %s: %v", dir, err)
		case noScript != "":
			fmt.Fprintf(stderr, "explore: no %s in %s: %s\n", replayScript, dir, noScript)
		default:
			if err := st.write(replayScript, func(w io.Writer) error { _, err := w.Write(script); return err }); err != nil {
				return fmt.Errorf("-out %s: %v", dir, err)
			}
		}
		rep := r.report(t, sum, script, noScript)
		if err := st.write(reportFile, func(w io.Writer) error { return bugreport.WriteSource(w, rep) }); err != nil {
			return fmt.Errorf("-out %s: %v", dir, err)
		}
	}
	return st.commit()
}

// report is r's violation as bugreport.WriteSource renders it: the file
// by its base name (a report names no path of this machine).
func (r *sourceRun) report(t *check.SourceTrace, sum sourceSummary, script []byte, noScript string) bugreport.SourceReport {
	p := r.prog
	var table strings.Builder
	writeSourceTable(&table, t)
	return bugreport.SourceReport{
		File: filepath.Base(p.Source.File), Function: p.Source.Name, SHA256: sum.SHA256, Python: sum.Python,
		Atomicity: sum.Atomicity, Scenario: p.Scenario,
		Kind: t.Violation.Kind, Thread: sum.Thread, Message: t.Violation.Message,
		Shrunk: r.shrunk, States: sum.States, Replayed: sum.Strategy == "replay",
		Steps: len(t.Steps), Preemptions: t.Preemptions,
		StepMeaning: stepMeaning(p), Table: table.String(),
		Search: r.repro, Script: script, NoScript: noScript,
	}
}

// isSourceSchedule reports whether data is what a -source run wrote for
// a replay: its schedule.txt or its trace.json.
func isSourceSchedule(data []byte) bool {
	return bytes.HasPrefix(data, []byte(source.ScheduleHeader)) || check.IsSourceTrace(data)
}

// runSourceReplay replays a source schedule file or trace.json: the same file (its
// digest checked), compiled by the same CPython version, the same world,
// the recorded steps; it prints what a -source run prints.
func runSourceReplay(o *options, data []byte, stdout, stderr io.Writer) (int, error) {
	if o.set["emit-test"] {
		return 0, usagef("replay %s: -emit-test is not written for a -source schedule yet (-out writes trace.txt, schedule.txt, summary.json, replay.py and report.md)", o.replay)
	}
	if err := checkReport(o); err != nil {
		return 0, err
	}
	if err := checkEmitPath(o); err != nil {
		return 0, err
	}
	var s *source.Schedule
	var err error
	if bytes.HasPrefix(data, []byte(source.ScheduleHeader)) {
		s, err = source.ReadSchedule(bytes.NewReader(data))
	} else { // isSourceSchedule took it for a trace.json
		s, err = check.ReadSourceTrace(data)
	}
	if err != nil {
		return 0, usagef("replay %s: %v", o.replay, err)
	}
	if len(s.Steps) == 0 {
		return 0, usagef("replay %s: the schedule has no steps (its run found no violation), so there is nothing to replay", o.replay)
	}
	b, err := os.ReadFile(s.File)
	if err != nil {
		return 0, usagef("replay %s: the source file: %v (the path is as its run was given it; replay from the same directory)", o.replay, unwrapPath(err))
	}
	if got := source.Digest(b); got != s.SHA256 {
		return 0, usagef("replay %s: %s changed since the schedule was written (sha256 %s, now %s): its steps are for the file as it was", o.replay, s.File, short(s.SHA256), short(got))
	}
	src, err := pysource.Open(s.Python, s.File+":"+s.Name)
	if err != nil {
		if pysource.FindFailed(err) {
			return 0, usagef("replay %s: %v", o.replay, err)
		}
		return 0, err
	}
	p, err := source.LoadWith(src, s.Scenario, s.Atomicity, source.Options{ThreadContext: s.ThreadContext})
	if err != nil {
		return 0, usagef("replay %s: %v", o.replay, err)
	}
	if o.out != "" {
		if err := prepareOut(o.out, o.force); err != nil {
			return 0, err
		}
	}
	fmt.Fprintf(stderr, "explore: -replay: %s\n", interpreterLine(src.Interpreter, s.Python))
	res, err := sched.Replay(source.New(p), s.Steps, sched.Limits{})
	if err != nil {
		return 0, usagef("replay %s: the schedule does not fit its scenario: %v", o.replay, err)
	}
	run := &sourceRun{prog: p, rerun: "go run ./cmd/explore -replay " + o.replay}
	sum := run.summary(res, 0)
	sum.Strategy = "replay"
	if err := run.emitPython(o, res); err != nil {
		return 0, err
	}
	outErr, err := run.output(o, res, sum, stdout, stderr)
	if err != nil {
		return 0, err
	}
	verdict := res.Verdict.String()
	if res.Failure != nil {
		verdict = "violation " + res.Failure.Kind
	}
	fmt.Fprintf(stderr, "explore: -replay %s (-source %s:%s), %s: %s\n", o.replay, s.File, s.Name, verdict, check.Count(len(s.Steps), "step"))
	return exitStatus(res.Verdict, outErr, stderr), nil
}

// short is a digest's first 12 hex digits, enough to tell two apart.
func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

// output prints a -source run's result (the text, or with -json the
// summary) and writes -out's files. err is stdout's; outErr, -out's, is
// said after the verdict, which it must not hide.
func (r *sourceRun) output(o *options, res sched.Result, sum sourceSummary, stdout, stderr io.Writer) (outErr, err error) {
	var t *check.SourceTrace
	if !o.json || o.out != "" { // -json alone prints no trace
		if t, err = r.trace(res, sum); err != nil {
			return nil, err
		}
	}
	switch {
	case o.json:
		err = sum.writeJSON(stdout)
	case o.set["report"] && o.report == reportHTML:
		err = bugreport.WriteSourceHTML(stdout, t, stepMeaning(r.prog))
	case o.set["report"]:
		if res.Verdict != sched.Violation || res.Failure.Kind == source.KindModelGap {
			return nil, usagef("-report %s: the verdict is not a violation of the file: there is no bug to report", o.report)
		}
		err = r.writeReport(stdout, res, t, sum)
	default:
		err = r.writeText(stdout, res, t)
	}
	if err != nil {
		return nil, err
	}
	if o.out != "" {
		outErr = writeSourceOut(o.out, r, res, t, sum, stderr)
	}
	return outErr, nil
}

// sourceScript renders the replay script of a -source run's
// counterexample (pyreplay.EmitSource).
func sourceScript(p *source.Program, res sched.Result) ([]byte, error) {
	if res.Verdict != sched.Violation || res.Failure.Kind == source.KindModelGap {
		return nil, fmt.Errorf("the verdict is %s: -source writes a replay of a violation only", res.Verdict)
	}
	var b bytes.Buffer
	if err := pyreplay.EmitSource(&b, p, res.Schedule, res.Failure); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// emitPython writes -emit-python's script of a -source run (its
// path was checked before the search: checkEmitPath).
func (r *sourceRun) emitPython(o *options, res sched.Result) error {
	if o.emitPython == "" {
		return nil
	}
	script, noScript, err := r.script(res)
	switch {
	case err != nil:
		return usagef("-emit-python: %v", err)
	case noScript != "":
		return usagef("-emit-python: %s", noScript)
	}
	if err := os.WriteFile(o.emitPython, script, 0o644); err != nil {
		return usagef("-emit-python: %v", unwrapPath(err))
	}
	return nil
}

// writeReport prints r's violation, whose trace is t, as a bug report
// (-report md), with its replay inline or, when the replay cannot force
// it, the reason.
func (r *sourceRun) writeReport(w io.Writer, res sched.Result, t *check.SourceTrace, sum sourceSummary) error {
	script, noScript, err := r.script(res)
	if err != nil {
		return err
	}
	return bugreport.WriteSource(w, r.report(t, sum, script, noScript))
}

// script is the replay script of r's violation (res), or, when the
// replay cannot force it (pyreplay.Unsupported), the one line that says
// why; rendered once, for -emit-python, -report md and -out alike.
func (r *sourceRun) script(res sched.Result) (script []byte, noScript string, err error) {
	s := &r.scripted
	if !s.done {
		s.script, s.err = sourceScript(r.prog, res)
		if un := (*pyreplay.Unsupported)(nil); errors.As(s.err, &un) {
			s.script, s.noScript, s.err = nil, s.err.Error(), nil
		}
		s.done = true
	}
	return s.script, s.noScript, s.err
}
