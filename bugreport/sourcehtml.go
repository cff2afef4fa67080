package bugreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"swapcheck/check"
)

//go:embed source-trace.html.tmpl
var sourcePageTemplate string

var sourcePageHTML = newPage("source-trace.html", sourcePageTemplate)

// sourcePage is what the -source page shows: the canonical trace, and
// what is worked out from it once here.
type sourcePage struct {
	T     *check.SourceTrace
	Title string
	// File is the file's base name; StepMeaning says what one step is
	// under the trace's atomicity (as the text trace says it).
	File, StepMeaning string
	// Seen and Invariant say what the violation's kind means.
	Seen, Invariant string
	Lanes           []string
	Rows            []sourceRow
}

// sourceRow is one step, the lane it goes in and its cell's lines.
type sourceRow struct {
	check.SourceStep
	Lane      int
	Code      []check.SourceLine
	Violating bool
	Kind      string
}

// WriteSourceHTML writes a -source run's trace as one standalone HTML
// page, as WriteHTML does a listing's: the head (file, function, CPython,
// atomicity, verdict), the scenario, a timeline with one lane per thread
// and one row per step (the file's lines, their opcodes and effects),
// and the command that replays it. It names no path of the machine that
// wrote it (the file by its base name, as report.md does), so that it
// can go with a bug report. stepMeaning says what one step is. It renders t, which
// trace.txt and trace.json render too.
func WriteSourceHTML(w io.Writer, t *check.SourceTrace, stepMeaning string) error {
	page := sourcePage{T: t, File: filepath.Base(t.Source.File), StepMeaning: strings.ToUpper(stepMeaning[:1]) + stepMeaning[1:]}
	if !portable(t.Replay) {
		c := *t
		c.Replay = "go run ./cmd/explore -replay trace.json"
		page.T = &c
	}
	what := fmt.Sprintf("%s (%s, CPython %s, %s)", t.Source.Function, page.File, t.Source.Python, t.Atomicity)
	page.Title = "swapcheck: " + what + ": " + t.Verdict
	if v := t.Violation; v != nil {
		page.Title = "swapcheck: " + what + ": violation " + v.Kind
		page.Seen, page.Invariant = check.KindSeen[v.Kind], check.KindInvariant[v.Kind]
	}
	names, laneOf := t.Lanes()
	page.Lanes = names
	fail := t.Failure()
	for i, s := range t.Steps {
		row := sourceRow{SourceStep: s, Lane: laneOf[s.Thread], Code: s.Lines()}
		if i == len(t.Steps)-1 && fail != nil && fail.Thread != "" {
			row.Violating, row.Kind = true, fail.Kind
		}
		page.Rows = append(page.Rows, row)
	}
	var b bytes.Buffer
	if err := sourcePageHTML.Execute(&b, page); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
