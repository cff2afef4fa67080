package cli

import (
	"io"
	"path/filepath"
	"strings"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/sched"
)

// reportFile is the bug report -out writes beside the trace; htmlFile
// the trace as a page (bugreport.WriteHTML), written for every verdict.
const (
	reportFile = "report.md"
	htmlFile   = "trace.html"
)

// -report's formats: reportMarkdown (report.md), reportHTML (trace.html).
const (
	reportMarkdown = "md"
	reportHTML     = "html"
)

// reportFormats lists -report's formats, for its messages.
const reportFormats = reportMarkdown + ", " + reportHTML

// checkReport refuses, before a search, a -report this command cannot
// write.
func checkReport(o *options) error {
	switch {
	case o.report == "" || !o.set["report"]:
		if o.set["report"] {
			return usagef("-report needs a format: %s", reportFormats)
		}
		return nil
	case o.report != reportMarkdown && o.report != reportHTML:
		return usagef("-report %q: the formats are %s", o.report, reportFormats)
	case o.json:
		return usagef("-report and -json both given: each says what stdout holds; give one")
	}
	return nil
}

// writeReport prints the bug report of a violation; anything else is
// refused as -emit-python refuses it. The page names repro, as -out's
// trace.html does; the Markdown report reportRepro's command.
func writeReport(out io.Writer, o *options, rep *check.Report, repro string) error {
	if rep.Result.Verdict != sched.Violation {
		return usagef("-report %s: the verdict is %s, not a violation: there is no bug to report", o.report, rep.Result.Verdict)
	}
	if o.report == reportHTML {
		return bugreport.WriteHTML(out, rep, repro)
	}
	return bugreport.Write(out, rep, reportRepro(o, rep))
}

// reportRepro is the search command a bug report names to find its trace
// again, as a reader runs it in a checkout of swapcheck: the flags given,
// shrunk as the replay line shrinks them, without the flags that name
// files of this machine (-corpus, -emit-test, -out) or say what stdout
// holds (-report), and with a scenario file outside testdata/ named
// scenario.txt (the report carries its text). "" when the trace came
// from a replay or a corpus: the report carries it as its trace.json.
func reportRepro(o *options, rep *check.Report) string {
	if o.replay != "" || rep.Corpus != "" {
		return ""
	}
	var kept []flagWords
	for _, f := range o.flagArgs {
		switch f.name {
		case "corpus", "emit-test", "report":
			continue
		case "scenario":
			f = flagWords{f.name, []string{"-scenario", portableScenario(o.scenario)}}
		}
		kept = append(kept, f)
	}
	if s := rep.Shrink; s != nil && len(s.Changes) > 0 && s.FlagsReproduce {
		return "go run ./cmd/explore " + strings.Join(shapeArgs(kept, *s.Shape), " ")
	}
	var words []string
	for _, f := range kept {
		words = append(words, f.words...)
	}
	return "go run ./cmd/explore " + strings.Join(words, " ")
}

// portableScenario is how a report names a scenario file: a path under
// swapcheck's testdata/ as given (a reader's checkout has it), any other
// as scenario.txt.
func portableScenario(path string) string {
	if p := filepath.ToSlash(path); filepath.IsLocal(path) && strings.HasPrefix(p, "testdata/") && !strings.ContainsAny(p, " '\"\\") {
		return p
	}
	return "scenario.txt"
}
