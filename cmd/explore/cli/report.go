package cli

import (
	"io"

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
// refused as -emit-python refuses it.
func writeReport(out io.Writer, o *options, rep *check.Report, repro string) error {
	if rep.Result.Verdict != sched.Violation {
		return usagef("-report %s: the verdict is %s, not a violation: there is no bug to report", o.report, rep.Result.Verdict)
	}
	if o.report == reportHTML {
		return bugreport.WriteHTML(out, rep, repro)
	}
	return bugreport.Write(out, rep, repro)
}
