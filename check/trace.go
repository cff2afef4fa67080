package check

import (
	"fmt"
	"io"
	"strings"

	"swapcheck/model"
	"swapcheck/sched"
)

// TraceStep is one step of a replayed counterexample.
type TraceStep struct {
	Thread int
	Event  model.Event
}

// Steps replays a schedule with effects recorded, for rendering.
func Steps(p *model.Program, schedule []sched.ThreadID) ([]TraceStep, error) {
	w := model.New(p)
	w.Trace = true
	out := make([]TraceStep, 0, len(schedule))
	for i, t := range schedule {
		if int(t) < 0 || int(t) >= w.NumThreads() {
			return nil, fmt.Errorf("step %d: no thread %d", i+1, t)
		}
		if st := w.Status(int(t)); st != sched.Runnable {
			return nil, fmt.Errorf("step %d: thread %s is %s, not runnable", i+1, p.ThreadName(int(t)), st)
		}
		out = append(out, TraceStep{Thread: int(t), Event: *w.Step(int(t))})
	}
	return out, nil
}

// cellWidth is the width of one thread's column in a trace.
const cellWidth = 50

// WriteTrace renders a report for a person: the verdict, and for a
// violation the failure, then one column per thread and one row per step,
// each with its Python line and what it did, the failing step marked, and
// the command that replays it (repro).
func WriteTrace(out io.Writer, r *Report, repro string) error {
	var b strings.Builder
	res := r.Result
	cfg := r.Config
	fmt.Fprintf(&b, "protocol %s, atomicity %s\n", cfg.Protocol.Name, cfg.Atomicity)
	if res.Verdict != sched.Violation {
		fmt.Fprintf(&b, "verdict: %s, nothing to report (strategy %s: %s)\n", res.Verdict, cfg.Strategy, coverage(r))
		_, err := io.WriteString(out, b.String())
		return err
	}
	steps, err := Steps(r.Program, res.Schedule)
	if err != nil {
		return fmt.Errorf("internal: the counterexample does not replay: %v", err)
	}
	fmt.Fprintf(&b, "verdict: violation %s\n%s\n\n", res.Failure.Kind, res.Failure.Message)
	fmt.Fprintf(&b, "scenario:\n")
	for _, line := range strings.Split(strings.TrimRight(cfg.Scenario.String(), "\n"), "\n") {
		fmt.Fprintf(&b, "    %s\n", line)
	}
	fmt.Fprintf(&b, "\n%s (%s), each one atomic CPython operation, in the thread's column.\n\n", Count(len(steps), "step"), Count(r.Preemptions, "preemption"))
	unreal, n := unrealSwitches(steps)
	writeSwitchLegend(&b, n)
	writeTable(&b, r.Program, steps, res.Failure, unreal)
	fmt.Fprintf(&b, "\nreplay: %s\n", repro)
	_, err = io.WriteString(out, b.String())
	return err
}

func writeTable(b *strings.Builder, p *model.Program, steps []TraceStep, f *sched.Failure, unreal []bool) {
	n := p.NumThreads()
	used := make([]bool, n)
	for _, s := range steps {
		used[s.Thread] = true
	}
	var cols []int
	for t := range n {
		if used[t] {
			cols = append(cols, t)
		}
	}
	row := func(mark string, cells []string) {
		line := fmt.Sprintf("%5s", mark)
		for _, c := range cells {
			line += " | " + fmt.Sprintf("%-*s", cellWidth, c)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	heads := make([]string, len(cols))
	for i, t := range cols {
		heads[i] = p.ThreadName(t)
	}
	row("step", heads)
	sep := strings.Repeat("-", 5)
	for range cols {
		sep += "-+-" + strings.Repeat("-", cellWidth)
	}
	b.WriteString(sep + "\n")
	for i, s := range steps {
		lines := cellLines(s.Event)
		last := i == len(steps)-1 && f != nil && f.Thread >= 0
		if last {
			lines = append(lines, "!! "+f.Kind)
		}
		for j, text := range lines {
			cells := make([]string, len(cols))
			for k, t := range cols {
				if t == s.Thread {
					cells[k] = text
				}
			}
			mark := ""
			if j == 0 {
				mark = fmt.Sprint(i + 1)
				if unreal[i] {
					mark = switchMark + mark
				}
				if last {
					mark = ">>" + mark
				}
			}
			row(mark, cells)
		}
	}
}

// cellLines is a step as lines of at most cellWidth: where, the Python
// text, then its effects.
func cellLines(ev model.Event) []string {
	var out []string
	out = append(out, wrap(ev.Where+"  "+ev.Text, cellWidth, "    ")...)
	for _, e := range ev.Effects {
		out = append(out, wrap("-> "+e, cellWidth, "   ")...)
	}
	if ev.Raised != 0 {
		out = append(out, "raises "+ev.Raised.String())
	}
	return out
}

func wrap(s string, width int, indent string) []string {
	var out []string
	for len(s) > width {
		cut := strings.LastIndexByte(s[:width], ' ')
		if cut <= len(indent) {
			cut = width
		}
		out = append(out, s[:cut])
		s = indent + strings.TrimLeft(s[cut:], " ")
	}
	return append(out, s)
}

// coverage says what a search covered, in words.
func coverage(r *Report) string {
	st := r.Result.Stats
	s := fmt.Sprintf("%d executions, %d states, %d steps", st.Executions, st.States, st.Steps)
	if r.Result.Cut != "" {
		s += "; stopped: " + r.Result.Cut
	}
	return s
}
