package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"swapcheck/check"
)

// runMerge is "explore merge [-json] FILE...": it combines the summary.json
// files of the shards of one search into one verdict and exit status.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the merged summary as JSON")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "explore merge: %v\n", strings.SplitN(err.Error(), "\n", 2)[0])
		return ExitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "explore merge: no files: give the summary.json of every shard")
		return ExitUsage
	}
	var parts []check.Summary
	for _, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "explore merge: %v\n", unwrapPath(err))
			return ExitUsage
		}
		var s check.Summary
		if err := json.Unmarshal(data, &s); err != nil {
			fmt.Fprintf(stderr, "explore merge: %s is not a summary.json: %v\n", path, err)
			return ExitUsage
		}
		parts = append(parts, s)
	}
	merged, err := check.MergeSummaries(parts)
	if err != nil {
		fmt.Fprintf(stderr, "explore merge: %v\n", err)
		return ExitUsage
	}
	if *asJSON {
		if err := merged.WriteJSON(stdout); err != nil {
			fmt.Fprintf(stderr, "explore merge: %v\n", err)
			return ExitUsage
		}
	} else {
		fmt.Fprintf(stdout, "%s (%s), %s: %s; %d executions, %d steps summed over the shards\n",
			merged.Protocol, merged.Atomicity, merged.Shard, merged.Verdict, merged.Executions, merged.Steps)
		if merged.Preemptions != nil {
			fmt.Fprintf(stdout, "preemptions per execution: %s\n", merged.Preemptions)
		}
		if merged.Violation != nil {
			fmt.Fprintf(stdout, "violation %s: %s\n", merged.Violation.Kind, merged.Violation.Message)
		}
		if merged.Stopped != "" {
			fmt.Fprintf(stdout, "not covered: %s\n", merged.Stopped)
		}
	}
	switch merged.Verdict {
	case "violation":
		return ExitViolation
	case "verified":
		return ExitOK
	}
	return ExitIncomplete
}
