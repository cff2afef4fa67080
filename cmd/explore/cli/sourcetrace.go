package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"swapcheck/check"
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

// writeSourceTable writes the steps of a -source trace; the last is
// marked when one thread failed.
func writeSourceTable(b *strings.Builder, t *check.SourceTrace) {
	names, laneOf := t.Lanes()
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
	fail := t.Failure()
	for i, s := range t.Steps {
		k := laneOf[s.Thread]
		lines := sourceCell(s.Lines(), text+(len(names)-1-k)*lane)
		last := i == len(t.Steps)-1 && fail != nil && fail.Thread != ""
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

// sourceCell is one step's lines of code as lines of at most width runes:
// a line with its opcodes in brackets, a C-level step in parentheses,
// effects after "->".
func sourceCell(code []check.SourceLine, width int) []string {
	var out []string
	for _, l := range code {
		if l.Native {
			out = append(out, check.Wrap("("+l.Bytecode[0]+")", width, " ")...)
			continue
		}
		out = append(out, check.Wrap(l.Where+"  "+l.Text, width, "    ")...)
		if len(l.Bytecode) > 0 {
			out = append(out, check.Wrap("  ["+strings.Join(l.Bytecode, "; ")+"]", width, "   ")...)
		}
		for _, e := range l.Effects {
			out = append(out, check.Wrap("-> "+e, width, "   ")...)
		}
	}
	return out
}
