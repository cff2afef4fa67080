package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// runMerge is "explore merge [-json] FILE...": it combines the summary.json
// files of the shards of one search into one verdict and exit status, and
// names the part whose trace.txt and schedule.txt hold a counterexample.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "explore merge: %s\n", oneLine(fmt.Sprintf(format, args...)))
		return ExitUsage
	}
	fs := flag.NewFlagSet("explore merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the merged summary as JSON")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		mergeUsage(stdout, fs)
		return ExitOK
	} else if err != nil {
		return fail("%s", strings.SplitN(err.Error(), "\n", 2)[0])
	}
	if fs.NArg() == 0 {
		return fail("no files: give the summary.json of every shard")
	}
	var parts []check.Summary
	paths := map[string]string{} // shard -> its summary.json
	for _, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			return fail("%v", unwrapPath(err))
		}
		s, err := check.ReadSummary(data)
		if err != nil {
			return fail("%s: %v", path, err)
		}
		parts = append(parts, s)
		paths[s.Shard] = path
	}
	merged, err := check.MergeSummaries(parts)
	if err != nil {
		return fail("%v", err)
	}
	if *asJSON {
		if err := merged.WriteJSON(stdout); err != nil {
			return fail("%v", err)
		}
	} else {
		fmt.Fprintf(stdout, "%s (%s), %s: %s; %s, %s summed over the shards\n",
			merged.Protocol, merged.Atomicity, merged.Shard, merged.Verdict, check.Count(merged.Executions, "execution"), check.Count(merged.Steps, "step"))
		if merged.Verdict == "verified" {
			// the world the merged proof covers, as a search's verified line names it
			if sc, err := scenario.Parse(strings.NewReader(merged.Scenario)); err == nil {
				if a, err := model.ParseAtomicity(merged.Atomicity); err == nil {
					fmt.Fprintf(stdout, "%s (%s): the world verified: %s\n", merged.Protocol, merged.Atomicity, world(sc, a))
				}
			}
		}
		if merged.Preemptions != nil {
			fmt.Fprintf(stdout, "preemptions per execution: %s\n", merged.Preemptions)
		}
		if v := merged.Violation; v != nil {
			fmt.Fprintf(stdout, "violation %s: %s\n", v.Kind, v.Message)
			dir := filepath.Dir(paths[merged.ViolationShard])
			fmt.Fprintf(stdout, "found by part %s: %s and %s hold it; replay: go run ./cmd/explore -replay %s\n", merged.ViolationShard,
				filepath.Join(dir, "trace.txt"), filepath.Join(dir, "schedule.txt"), shellQuote(filepath.Join(dir, "schedule.txt")))
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
