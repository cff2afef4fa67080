package bugreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/anishathalye/porcupine"

	"swapcheck/check"
)

//go:embed trace.html.tmpl
var pageTemplate string

// pageParts are the style and the script every page shares.
//
//go:embed page.html.tmpl
var pageParts string

var pageHTML = newPage("trace.html", pageTemplate)

// newPage parses a page's template with the parts every page shares and
// the functions the templates call.
func newPage(name, text string) *template.Template {
	funcs := template.FuncMap{"count": check.Count[int], "code": codeSpans, "join": strings.Join}
	return template.Must(template.Must(template.New(name).Funcs(funcs).Parse(pageParts)).Parse(text))
}

// codeSpans renders the Markdown code spans of check's texts (KindSeen,
// KindInvariant: "the module's `cuda`") as <code>, escaping the rest.
func codeSpans(s string) template.HTML {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(part))
		}
	}
	return template.HTML(b.String())
}

// htmlPage is what the template shows: the canonical trace, and what is
// worked out from it once here so that the template only lays it out.
type htmlPage struct {
	T *check.Trace
	// Title is the page's title: the variant and the violation's headline,
	// or the verdict.
	Title string
	// UserError is the error the simulator raises, as numba words it ("" if
	// the violation raises none a user sees); Seen and Invariant say what
	// the kind means (check.KindSeen, check.KindInvariant).
	UserError, Seen, Invariant string
	// Source is the variant's Python file, under testdata/python.
	Source string
	// Lanes are the threads that took a step, in thread order; each row's
	// step goes in its thread's lane.
	Lanes []string
	Rows  []htmlRow
	// Unreal counts the steps marked UnrealSwitch.
	Unreal int
	// Linearization is porcupine's page of the history when porcupine
	// rejects it ("" otherwise), shown in a frame of its own.
	Linearization string
}

// htmlRow is one step and the lane it goes in.
type htmlRow struct {
	check.TraceEntry
	Lane int
	// Violating: the step that broke the invariant (the last, when one
	// thread failed).
	Violating bool
}

// WriteHTML writes r as one standalone HTML page (no network: its style
// and script are inline): the head (variant, atomicity, verdict, and the
// error a user sees), the scenario, a timeline with one lane per thread
// and one row per step (its Python line, bytecode and effects, the
// violating step marked), and the command that replays it (with no path
// of the machine that wrote it: a command naming one becomes a replay of
// the trace.json beside the page). It renders
// check.NewTrace(r, repro), the trace that trace.txt and trace.json
// render. When porcupine rejects the counterexample's history of swaps
// and reads (check.VisualizeLinearizability), porcupine's own
// visualization of it follows the timeline, in a frame. A report without
// a violation gives a page with its verdict and what was covered.
func WriteHTML(w io.Writer, r *check.Report, repro string) error {
	t, err := check.NewTrace(r, repro)
	if err != nil {
		return err
	}
	if !portable(t.Replay) {
		// The page, like report.md, names no path of the machine that
		// wrote it: -out writes it beside the trace.json that replays it.
		t.Replay = "go run ./cmd/explore -replay trace.json"
	}
	p := htmlPage{T: t, Source: r.Config.Protocol.Source, Title: fmt.Sprintf("swapcheck: %s (%s): %s", t.Protocol, t.Atomicity, t.Verdict)}
	if v := t.Violation; v != nil {
		p.Title = fmt.Sprintf("swapcheck: %s (%s): %s", t.Protocol, t.Atomicity, headline(v))
		p.UserError, p.Seen, p.Invariant = userError(v), check.KindSeen[v.Kind], check.KindInvariant[v.Kind]
		var lin bytes.Buffer
		res, err := check.VisualizeLinearizability(&lin, r)
		if err != nil {
			return err
		}
		if res == porcupine.Illegal {
			p.Linearization = lin.String()
		}
	}
	var lane []int
	p.Lanes, lane = t.Lanes()
	for i, s := range t.Steps {
		violating := i == len(t.Steps)-1 && t.Violation != nil && t.Violation.Thread != ""
		p.Rows = append(p.Rows, htmlRow{TraceEntry: s, Lane: lane[s.Thread], Violating: violating})
		if s.UnrealSwitch {
			p.Unreal++
		}
	}
	var b bytes.Buffer
	if err := pageHTML.Execute(&b, p); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}
