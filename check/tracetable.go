package check

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TextWidth is the width a text trace aims at: a terminal's 80 columns.
// A trace whose steps come from up to five threads (the host and four GPU
// threads, with short names) fits in it; each further thread widens it
// by one lane (see tableLayout).
const TextWidth = 80

// The table's lanes. Each thread that took a step has a column, a lane,
// that starts at its rail ("|"); only one thread acts in a row, so its
// text starts in its own lane and runs on over the empty lanes to its
// right to the trace's right edge. A later thread's lane starts further
// right and leaves its text less room: the last lane's text gets
// idealLastText columns where TextWidth allows it, and never fewer than
// minLastText (the trace grows wider instead). A lane is never narrower
// than its thread's name and the rail (minLane), nor wider than maxLane,
// so that a trace of two threads does not spread its rails apart.
const (
	markWidth     = 5  // the step number and its marks: ">>~22"
	idealLastText = 46 // the variants' longest lines wrap once
	minLastText   = 40
	minLane       = 8
	maxLane       = 24
)

// tableLayout is the lanes' width and the last lane's text width for
// lanes whose heads are names.
func tableLayout(names []string) (lane, lastText int) {
	prefix := markWidth + len(" |") + len(" ") // before a cell's text
	if len(names) < 2 {
		return 0, max(TextWidth-prefix, minLastText)
	}
	lane = minLane
	for _, n := range names[:len(names)-1] {
		lane = max(lane, utf8.RuneCountInString(n)+len("  |"))
	}
	others := len(names) - 1
	lane = max(lane, min(maxLane, (TextWidth-prefix-idealLastText)/others))
	return lane, max(TextWidth-prefix-others*lane, minLastText)
}

// writeTable writes the steps: a head naming each lane's thread, then
// per step its number (">>" marks the failing step, switchMark an unreal
// switch) and the step's lines in its thread's lane, the lanes to its
// left shown by their rails.
func (t *Trace) writeTable(b *strings.Builder) {
	used := make([]bool, len(t.Threads))
	for _, s := range t.Steps {
		used[s.Thread] = true
	}
	var lanes []int // thread numbers, by lane
	laneOf := make([]int, len(t.Threads))
	var heads []string
	for n := range t.Threads {
		if used[n] {
			laneOf[n] = len(lanes)
			lanes = append(lanes, n)
			heads = append(heads, t.Threads[n])
		}
	}
	lane, lastText := tableLayout(heads)
	rails := func(k int) string { return strings.Repeat(strings.Repeat(" ", lane-1)+"|", k) }
	row := func(mark string, k int, text string) {
		line := fmt.Sprintf("%*s |", markWidth, mark) + rails(k) + " " + text
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}

	head := fmt.Sprintf("%*s |", markWidth, "step")
	sep := strings.Repeat("-", markWidth+1) + "+"
	for k, h := range heads {
		if k == len(heads)-1 {
			head += " " + h
			sep += strings.Repeat("-", lastText+1)
			break
		}
		head += " " + h + strings.Repeat(" ", lane-2-utf8.RuneCountInString(h)) + "|"
		sep += strings.Repeat("-", lane-1) + "+"
	}
	b.WriteString(head + "\n" + sep + "\n")

	v := t.Violation
	for i, s := range t.Steps {
		k := laneOf[s.Thread]
		lines := cellLines(s, lastText+(len(lanes)-1-k)*lane)
		last := i == len(t.Steps)-1 && v != nil && v.Thread != ""
		if last {
			lines = append(lines, "!! "+v.Kind)
		}
		for j, text := range lines {
			mark := ""
			if j == 0 {
				mark = fmt.Sprint(i + 1)
				if s.UnrealSwitch {
					mark = switchMark + mark
				}
				if last {
					mark = ">>" + mark
				}
			}
			row(mark, k, text)
		}
	}
}

// cellLines is a step as lines of at most width runes: where, the Python
// text, then its effects and the exception it raised.
func cellLines(s TraceEntry, width int) []string {
	out := wrap(s.Where+"  "+s.Text, width, "    ")
	for _, e := range s.Effects {
		out = append(out, wrap("-> "+e, width, "   ")...)
	}
	if s.Raises != "" {
		out = append(out, "raises "+s.Raises)
	}
	if s.AfterFailure != "" {
		out = append(out, "!  "+s.AfterFailure+" after failure: harmless")
	}
	return out
}

// Wrap breaks s into lines of at most width runes, at spaces where it
// can, each line after the first starting with indent (the trace table's
// cells; explore -source's trace uses it too).
func Wrap(s string, width int, indent string) []string { return wrap(s, width, indent) }

// wrap is Wrap.
func wrap(s string, width int, indent string) []string {
	var out []string
	rs := []rune(s)
	for len(rs) > width {
		cut := -1
		for i := width; i > 0; i-- {
			if rs[i] == ' ' {
				cut = i
				break
			}
		}
		if cut <= utf8.RuneCountInString(indent) {
			cut = width
		}
		out = append(out, strings.TrimRight(string(rs[:cut]), " "))
		rs = []rune(indent + strings.TrimLeft(string(rs[cut:]), " "))
	}
	return append(out, string(rs))
}

// commandLines breaks a shell command into lines of at most width runes
// (the first line's after a prefix of first runes), at spaces outside
// single quotes, each line but the last ending in " \" so that the lines
// paste into a shell as the one command. A word longer than a line is
// not broken.
func commandLines(cmd string, first, width int) []string {
	var words []string
	var w strings.Builder
	quoted := false
	for _, r := range cmd {
		switch {
		case r == '\'':
			quoted = !quoted
		case r == ' ' && !quoted:
			if w.Len() > 0 {
				words = append(words, w.String())
				w.Reset()
			}
			continue
		}
		w.WriteRune(r)
	}
	if w.Len() > 0 {
		words = append(words, w.String())
	}
	// lines of words; a flag ("-protocol") stays with its value
	var lines [][]string
	var cur []string
	room := width - first
	length := func(ws []string) int { return utf8.RuneCountInString(strings.Join(ws, " ")) }
	for i, word := range words {
		mark := len(" \\") // the continuation mark the line would need
		if i == len(words)-1 {
			mark = 0
		}
		if len(cur) == 0 || length(append(cur[:len(cur):len(cur)], word))+mark <= room {
			cur = append(cur, word)
			continue
		}
		next := []string{word}
		if last := cur[len(cur)-1]; len(cur) > 1 && strings.HasPrefix(last, "-") && !strings.HasPrefix(word, "-") {
			cur, next = cur[:len(cur)-1], []string{last, word}
		}
		lines = append(lines, cur)
		cur, room = next, width-len("    ")
	}
	lines = append(lines, cur)
	out := make([]string, len(lines))
	for i, ws := range lines {
		out[i] = strings.Join(ws, " ")
		if i > 0 {
			out[i] = "    " + out[i]
		}
		if i < len(lines)-1 {
			out[i] += " \\"
		}
	}
	return out
}
