package stress

import (
	"fmt"
	"io"
	"strings"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// WriteReport renders a result for a person: what ran, the verdict with
// the throughput, and for a violation the failing thread and step, the
// steps just before it, and the command that reproduces it (repro).
func WriteReport(out io.Writer, r *Result, repro string) error {
	var b strings.Builder
	cfg := r.Config
	sc := cfg.Scenario
	fmt.Fprintf(&b, "protocol %s, atomicity %s, on goroutines: %s per block x %s x %s, -gosched %g, -seed %d\n",
		cfg.Protocol.Name, cfg.Atomicity, check.Count(sc.Threads, "GPU thread"), check.Count(sc.Blocks, "block"), check.Count(sc.Launches, "launch"), cfg.Gosched, cfg.Seed)
	fmt.Fprintf(&b, "ran %s, %s, %s in %s: %.0f calls/s\n",
		check.Count(r.Launches, "launch"), check.Count(r.Calls, "device call"), check.Count(r.Steps, "step"), round(r.Elapsed), r.CallsPerSec())
	v := r.Violation
	switch {
	case r.Verdict == sched.Incomplete:
		fmt.Fprintf(&b, "verdict: incomplete (%s), no violation so far; nothing is proved\n", r.Cut)
	case v == nil && r.Violations > 0:
		fmt.Fprintf(&b, "verdict: violation in %d of %d launches (counted, not stopped at)\n", r.Violations, r.Launches)
	case v == nil:
		fmt.Fprintf(&b, "verdict: no violation found; this proves nothing\n")
	}
	if r.LocksLeft > 0 {
		fmt.Fprintf(&b, "per-module locks left after a launch: at most %d (allowed)\n", r.LocksLeft)
	}
	if v != nil {
		writeViolation(&b, r, v, repro)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func writeViolation(b *strings.Builder, r *Result, v *Violation, repro string) {
	p := r.Program
	fmt.Fprintf(b, "verdict: violation %s\n%s\n\n", v.Failure.Kind, v.Failure.Message)
	fmt.Fprintf(b, "found after %s and %d device calls, in launch %d", round(v.After), v.Calls, v.Launch)
	if v.Failure.Thread >= 0 {
		fmt.Fprintf(b, ", at step %d of the launch, by thread %s", len(v.Schedule), p.ThreadName(int(v.Failure.Thread)))
	} else {
		fmt.Fprintf(b, ", when its %d steps were done", len(v.Schedule))
	}
	b.WriteString("\n")
	if v.Reproduced {
		fmt.Fprintf(b, "the simulator replays the launch's %d recorded steps, in the order they took effect, to the same failure\n", len(v.Schedule))
	} else {
		fmt.Fprintf(b, "internal: %s\n", v.Note)
	}
	if len(v.Recent) > 0 {
		fmt.Fprintf(b, "\nthe last %d steps:\n", len(v.Recent))
		writeSteps(b, p, v)
	}
	if repro != "" {
		fmt.Fprintf(b, "\nreproduce: %s\n", repro)
	}
}

// writeSteps lists the recent steps, one a line: number, thread, where,
// the Python line, and what it did; the failing step is marked.
func writeSteps(b *strings.Builder, p *model.Program, v *Violation) {
	width := 0
	for _, s := range v.Recent {
		width = max(width, len(p.ThreadName(s.Thread)))
	}
	for i, s := range v.Recent {
		mark := " "
		n := v.FirstRecent + i
		if n == len(v.Schedule) && v.Failure.Thread >= 0 {
			mark = ">"
		}
		ev := s.Event
		line := fmt.Sprintf("%s %6d  %-*s  %-16s %s", mark, n, width, p.ThreadName(s.Thread), ev.Where, ev.Text)
		if len(ev.Effects) > 0 {
			line += "   [" + strings.Join(ev.Effects, "; ") + "]"
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// round keeps durations readable.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d
}

// CheckReport is the violation as a check.Report (strategy "goroutines"),
// for the schedule and trace files of -out.
func (r *Result) CheckReport() *check.Report {
	rep := &check.Report{
		Config:  check.Config{Protocol: r.Config.Protocol, Scenario: r.Config.Scenario, Atomicity: r.Config.Atomicity, Strategy: Backend},
		Program: r.Program, Elapsed: r.Elapsed, LocksLeft: r.LocksLeft,
	}
	if v := r.Violation; v != nil {
		f := v.Failure
		rep.Result = sched.Result{Verdict: sched.Violation, Failure: &f, Schedule: v.Schedule}
	} else {
		rep.Result = sched.Result{Verdict: r.Verdict, Cut: r.Cut}
	}
	return rep
}

// Backend is the name of this backend, as -backend spells it.
const Backend = "goroutines"
