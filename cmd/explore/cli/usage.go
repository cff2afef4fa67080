package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"swapcheck/check"
)

// exitHelp documents the exit statuses, for -h of explore and of merge.
const exitHelp = `exit status:
  0  no violation: verified, no violation found (which proves nothing),
     or one part of a sharded search ran its share (merge gives the verdict)
  1  violation (the trace, or the JSON summary with -json, says which)
  2  bad usage or input (one line on stderr); -h and -version exit 0
  3  incomplete: a limit, -timeout or a signal (Ctrl-C, SIGTERM, SIGHUP)
     stopped it, or -source met what it cannot model; the summary says
     what was covered
`

// usage prints explore's help: its forms, the merge subcommand, the exit
// statuses, and then, mode by mode, every flag the mode reads with what
// it does, its range and its default (a flag that several modes read is
// described under the first and named under the others). Every line fits
// helpWidth columns.
func usage(out io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(out, `explore %s: model-check a swapped_cuda_module variant

usage:
  explore -protocol NAME [flags]          search its interleavings for a violation
  explore -replay FILE [-out DIR] [-json] replay a trace.json or schedule.txt
                                          written by -out
  explore -source FILE[:NAME] [flags]     check the swap function of a Python file
                                          as written (NAME: swapped_cuda_module)
  explore -backend goroutines -protocol NAME [flags]
                                          stress it on real goroutines
  explore -compare [flags]                time every strategy and stress
  explore -list | -table | -version
  explore merge [-json] SUMMARY.json...   combine the parts of a sharded search
                                          (explore merge -h)

%s`, check.Version, exitHelp)
	fmt.Fprint(out, flagHelp(fs))
}

// helpWidth is the widest line -h prints.
const helpWidth = 100

// flagHelp is -h's flags, grouped by the mode that reads them, the search
// (the default) first; a flag outside its mode is refused. A flag of fs
// that no mode reads is named at the end (TestEveryFlagHasAMode fails on
// it).
func flagHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("\nflags, by the mode that reads them; a flag the chosen mode does not list is refused:\n")
	described := map[string]bool{}
	order := append([]mode{modes[len(modes)-1]}, modes[:len(modes)-1]...)
	for _, m := range order {
		picks := m.picks
		if picks == "" {
			picks = "no mode flag"
		}
		fmt.Fprintf(&b, "\n%s (%s):\n", m.name, picks)
		var also []string
		for _, name := range append([]string{m.flag}, m.reads...) {
			f := fs.Lookup(name)
			if f == nil {
				continue
			}
			if described[name] {
				also = append(also, "-"+name)
				continue
			}
			described[name] = true
			b.WriteString(flagEntry(f))
		}
		if len(also) > 0 {
			fmt.Fprintf(&b, "  also reads, as above: %s\n", wrap(strings.Join(also, " "), helpWidth-24, strings.Repeat(" ", 24)))
		}
	}
	var orphans []string
	fs.VisitAll(func(f *flag.Flag) {
		if !described[f.Name] {
			orphans = append(orphans, "-"+f.Name)
		}
	})
	if len(orphans) > 0 { // TestEveryFlagHasAMode fails on this
		fmt.Fprintf(&b, "\nread by no mode (modes.go forgot them): %s\n", strings.Join(orphans, " "))
	}
	return b.String()
}

// flagEntry is one flag of -h: its name and argument, then its usage
// wrapped and indented, with the strategies that read it (flagTable)
// and its default.
func flagEntry(f *flag.Flag) string {
	arg, text := flag.UnquoteUsage(f)
	head := "  -" + f.Name
	if arg != "" {
		head += " " + arg
	}
	if ss := strategiesOf(f.Name); ss != nil {
		text += " (only with -strategy " + strings.Join(ss, ", ") + ")"
	}
	if f.DefValue != "" && f.DefValue != "false" && !strings.Contains(text, "(default") {
		// one word for wrap, so that the default is never split from its value
		text += " (default\x00" + f.DefValue + ")"
	}
	const indent = "        "
	return head + "\n" + indent + strings.ReplaceAll(wrap(text, helpWidth-len(indent), indent), "\x00", " ") + "\n"
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
