package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"swapcheck/check"
	"swapcheck/sched"
	"swapcheck/source"
)

// A -source trace is a table as the model's (check's trace table): one
// lane per thread that took a step, one row per step in its thread's
// lane, the failing step marked ">>" and its kind "!!". Its cells differ:
// a step of the file's code runs several instructions, so a cell lists
// them, grouped by source line: the line ("naive.py:11  orig = ..."),
// then its opcodes in brackets; a C-level step of the interpreter (a
// contextlib helper, a builtin driving a generator) in parentheses; a
// statement of the simulator's code with its effect after "->". check's
// table renders one Python line per step, with no opcodes, so it is not
// reused; its layout is (the same widths).

// The table's layout: check.TextWidth wide where it can be; a lane is at
// least sourceMinLane and at most sourceMaxLane wide, and the last lane's
// text never narrower than sourceMinText.
const (
	sourceMark      = 5 // the step number and its mark: ">>22"
	sourceMinLane   = 8
	sourceMaxLane   = 24
	sourceIdealText = 46
	sourceMinText   = 40
)

// writeSourceTable writes the steps of a -source counterexample; fail,
// when its thread is set, marks the last step.
func writeSourceTable(b *strings.Builder, p *source.Program, steps []source.Step, fail *sched.Failure) {
	used := make([]bool, p.NumThreads())
	for _, s := range steps {
		used[s.Thread] = true
	}
	laneOf := make([]int, len(used))
	var names []string
	for t, u := range used {
		if u {
			laneOf[t] = len(names)
			names = append(names, p.ThreadName(t))
		}
	}
	prefix := sourceMark + len(" |") + len(" ")
	lane, text := 0, max(check.TextWidth-prefix, sourceMinText)
	if others := len(names) - 1; others > 0 {
		lane = sourceMinLane
		for _, n := range names[:others] {
			lane = max(lane, utf8.RuneCountInString(n)+len("  |"))
		}
		lane = max(lane, min(sourceMaxLane, (check.TextWidth-prefix-sourceIdealText)/others))
		text = max(check.TextWidth-prefix-others*lane, sourceMinText)
	}

	rails := func(k int) string { // the rails of the k lanes left of a cell
		if k == 0 {
			return ""
		}
		return strings.Repeat(strings.Repeat(" ", lane-1)+"|", k)
	}

	head := fmt.Sprintf("%*s |", sourceMark, "step")
	sep := strings.Repeat("-", sourceMark+1) + "+"
	for k, n := range names {
		if k == len(names)-1 {
			head += " " + n
			sep += strings.Repeat("-", text+1)
			break
		}
		head += " " + n + strings.Repeat(" ", lane-2-utf8.RuneCountInString(n)) + "|"
		sep += strings.Repeat("-", lane-1) + "+"
	}
	b.WriteString(head + "\n" + sep + "\n")
	for i, s := range steps {
		k := laneOf[s.Thread]
		lines := sourceCell(s.Units, text+(len(names)-1-k)*lane)
		last := i == len(steps)-1 && fail != nil && fail.Thread >= 0
		if last {
			lines = append(lines, "!! "+fail.Kind)
		}
		for j, l := range lines {
			mark := ""
			if j == 0 {
				mark = fmt.Sprint(i + 1)
				if last {
					mark = ">>" + mark
				}
			}
			row := fmt.Sprintf("%*s |", sourceMark, mark) + rails(k) + " " + l
			b.WriteString(strings.TrimRight(row, " ") + "\n")
		}
	}
}

// sourceCell is one step's units as lines of at most width runes:
// consecutive units of one line of code grouped, their opcodes in
// brackets, a C-level step in parentheses, effects after "->".
func sourceCell(units []source.Unit, width int) []string {
	var out []string
	for i := 0; i < len(units); {
		u := units[i]
		if u.Text == "" { // a C-level step of the interpreter
			out = append(out, check.Wrap("("+u.Bytecode+")", width, " ")...)
			i++
			continue
		}
		j := i
		var ops, effects []string
		for ; j < len(units) && units[j].Where == u.Where && units[j].Text == u.Text; j++ {
			if units[j].Bytecode != "" {
				ops = append(ops, units[j].Bytecode)
			}
			if units[j].Effect != "" {
				effects = append(effects, units[j].Effect)
			}
		}
		out = append(out, check.Wrap(u.Where+"  "+u.Text, width, "    ")...)
		if len(ops) > 0 {
			out = append(out, check.Wrap("  ["+strings.Join(ops, "; ")+"]", width, "   ")...)
		}
		for _, e := range effects {
			out = append(out, check.Wrap("-> "+e, width, "   ")...)
		}
		i = j
	}
	return out
}
