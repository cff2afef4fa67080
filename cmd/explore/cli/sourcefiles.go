package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"swapcheck/check"
	"swapcheck/pysource"
	"swapcheck/sched"
	"swapcheck/source"
)

// A -source run's files: -out DIR writes trace.txt (what stdout shows
// without -json), schedule.txt (source.WriteSchedule: the file's path and
// digest, the function, the CPython version, the atomicity, the scenario
// and the steps) and summary.json (what -json prints), and -replay of
// that schedule.txt runs its steps again on the same file, which it
// refuses when the file's bytes changed since.

// writeSourceOut writes a -source run's files into dir, all or none.
func writeSourceOut(dir string, r *sourceRun, res sched.Result, sum sourceSummary) error {
	st, err := stageOut(dir)
	if err != nil {
		return err
	}
	defer st.abort()
	if err := st.write("trace.txt", func(w io.Writer) error { return r.write(w, res) }); err != nil {
		return fmt.Errorf("-out %s: %v", dir, err)
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
	return st.commit()
}

// isSourceSchedule reports whether data is a source schedule file.
func isSourceSchedule(data []byte) bool {
	return bytes.HasPrefix(data, []byte(source.ScheduleHeader))
}

// runSourceReplay replays a source schedule file: the same file (its
// digest checked), compiled by the same CPython version, the same world,
// the recorded steps; it prints what a -source run prints.
func runSourceReplay(o *options, data []byte, stdout, stderr io.Writer) (int, error) {
	for _, f := range []string{"emit-python", "emit-test", "report"} {
		if o.set[f] {
			return 0, usagef("replay %s: -%s is not written for a -source schedule yet (-out writes trace.txt, schedule.txt and summary.json)", o.replay, f)
		}
	}
	s, err := source.ReadSchedule(bytes.NewReader(data))
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
	in, err := pysource.Find(s.Python)
	if err != nil {
		return 0, usagef("replay %s: %v", o.replay, err)
	}
	src, err := pysource.Load(in, s.File+":"+s.Name)
	if err != nil {
		return 0, err
	}
	p, err := source.Load(src, s.Scenario, s.Atomicity)
	if err != nil {
		return 0, usagef("replay %s: %v", o.replay, err)
	}
	if o.out != "" {
		if err := prepareOut(o.out, o.force); err != nil {
			return 0, err
		}
	}
	fmt.Fprintf(stderr, "explore: -replay: %s\n", interpreterLine(in, s.Python))
	res, err := sched.Replay(source.New(p), s.Steps, sched.Limits{})
	if err != nil {
		return 0, usagef("replay %s: the schedule does not fit its scenario: %v", o.replay, err)
	}
	run := &sourceRun{prog: p, rerun: "go run ./cmd/explore -replay " + o.replay}
	sum := run.summary(res, 0)
	sum.Strategy = "replay"
	outErr, err := run.output(o, res, sum, stdout)
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
func (r *sourceRun) output(o *options, res sched.Result, sum sourceSummary, stdout io.Writer) (outErr, err error) {
	if o.json {
		err = sum.writeJSON(stdout)
	} else {
		err = r.write(stdout, res)
	}
	if err != nil {
		return nil, err
	}
	if o.out != "" {
		outErr = writeSourceOut(o.out, r, res, sum)
	}
	return outErr, nil
}
