package cli

import (
	"flag"
	"io"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/sched"
)

// reportFile is the bug report -out writes beside the trace.
const reportFile = "report.md"

// reportMarkdown is -report's one format so far.
const reportMarkdown = "md"

func registerReportFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.report, "report", "", "print, instead of the trace, the violation as a bug report in `FORMAT` md (Markdown for a GitHub issue; -out writes it as report.md too)")
}

// checkReport refuses, before a search, a -report this command cannot
// write.
func checkReport(o *options) error {
	switch {
	case o.report == "" || !o.set["report"]:
		if o.set["report"] {
			return usagef("-report needs a format: %s", reportMarkdown)
		}
		return nil
	case o.report != reportMarkdown:
		return usagef("-report %q: the formats are %s", o.report, reportMarkdown)
	case o.json:
		return usagef("-report and -json both given: each says what stdout holds; give one")
	}
	return nil
}

// writeReport prints the bug report of a violation; anything else is
// refused as -emit-python refuses it.
func writeReport(out io.Writer, rep *check.Report, repro string) error {
	if rep.Result.Verdict != sched.Violation {
		return usagef("-report %s: the verdict is %s, not a violation: there is no bug to report", reportMarkdown, rep.Result.Verdict)
	}
	return bugreport.Write(out, rep, repro)
}
