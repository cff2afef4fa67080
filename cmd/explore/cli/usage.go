package cli

import (
	"flag"
	"fmt"
	"io"

	"swapcheck/check"
)

// exitHelp documents the exit statuses, for -h of explore and of merge.
const exitHelp = `exit status:
  0  no violation: verified, no violation found (which proves nothing),
     or one part of a sharded search ran its share (merge gives the verdict)
  1  violation (the trace, or the JSON summary with -json, says which)
  2  bad usage or input (one line on stderr); -h and -version exit 0
  3  incomplete: a limit, -timeout or a signal (Ctrl-C, SIGTERM, SIGHUP)
     stopped it; the summary says what was covered
`

// usage prints explore's help: its forms, the merge subcommand, the exit
// statuses, which flags each mode reads, and every flag with its range.
func usage(out io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(out, `explore %s: model-check a swapped_cuda_module variant

usage:
  explore -protocol NAME [flags]          search its interleavings for a violation
  explore -replay FILE [-out DIR] [-json] replay a trace.json or schedule.txt
                                          written by -out
  explore -backend goroutines -protocol NAME [flags]
                                          stress it on real goroutines
  explore -compare [flags]                time every strategy and stress
  explore -list | -table | -version
  explore merge [-json] SUMMARY.json...   combine the parts of a sharded search
                                          (explore merge -h)

%s
modes (the flag that picks each, and the flags it reads; any other is refused):
%s
flags:
`, check.Version, exitHelp, modeHelp(fs))
	fs.SetOutput(out)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// mergeUsage prints explore merge's help.
func mergeUsage(out io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(out, `explore merge %s: combine the summary.json files of the parts of one
sharded search (explore -shard i/n -out DIR) into one verdict:
a violation if any part found one (the output names the part whose
trace.txt and schedule.txt hold it), verified only if every part 0..n-1 is
there and covered its share, otherwise incomplete, naming what is missing.
See docs/sharding.md.

usage:
  explore merge [-json] SUMMARY.json...

exit status:
  0  verified: every part is there and covered its share
  1  violation: some part found one
  2  bad usage or input (one line on stderr); -h exits 0
  3  incomplete: a part is missing or was cut short

flags:
`, check.Version)
	fs.SetOutput(out)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
