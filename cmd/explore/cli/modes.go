package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"swapcheck/check"
)

// A mode is one thing explore does: the flag that picks it and every flag
// it reads. A flag given to a mode that does not read it is refused (one
// line, exit 2) rather than silently ignored: this table is the one place
// that says which flags go together, and -h prints it.
type mode struct {
	name  string   // for -h
	picks string   // the flag that picks it, as typed ("" for the search)
	flag  string   // the flag name behind picks ("" for the search)
	reads []string // the flags it reads, besides flag
	why   string   // why another flag does not apply ("" for the default reason)
}

var (
	shapeFlags  = []string{"threads", "blocks", "calls", "modules", "names", "nest", "syncthreads", "host-calls", "hosts", "branch"}
	targetFlags = append([]string{"protocol", "scenario", "atomicity"}, shapeFlags...)
	// faultFlags apply to a scenario file too (faults.go)
	faultFlags = []string{"faults", "max-faults"}
)

// modes lists the modes, the search (the default) last. Two of -list,
// -table, -version and -compare together are refused; -backend goroutines
// or -replay besides an earlier mode's flag is refused as a flag that mode
// does not read.
var modes = []mode{
	{name: "list the variants, strategies and violation kinds", picks: "-list", flag: "list"},
	{name: "print the verdict table of the README", picks: "-table", flag: "table"},
	{name: "print the version", picks: "-version", flag: "version"},
	{name: "time every strategy and stress on the buggy variants", picks: "-compare", flag: "compare",
		reads: []string{"trials", "duration", "seed", "workers", "preemptions", "depth", "max-depth", "quiet"},
		why:   "-compare runs every strategy and stress on its own cases (the buggy variants on -threads 2 and 64), each trial capped by -duration"},
	{name: "stress the protocol on real goroutines", picks: "-backend goroutines", flag: "backend",
		reads: append(slices.Clone(targetFlags), "duration", "max-calls", "gosched", "seed", "out", "force", "json")},
	{name: "replay N random walks on real Python threads and tally them", picks: "-replay-random N", flag: "replay-random",
		reads: append(append(slices.Clone(targetFlags), faultFlags...), "seed", "python", "target", "swap", "out", "force", "workers", "after-failure")},
	{name: "replay a trace.json or schedule.txt written by -out", picks: "-replay", flag: "replay",
		reads: []string{"out", "force", "json", "emit-python", "emit-test", "report"},
		why:   "the file names its protocol, atomicity, scenario and the violations searched for"},
	{name: "search the interleavings (the default)",
		// max-memory: the search's memory bound
		reads: append(append(slices.Clone(targetFlags), faultFlags...), "backend", "strategy", "preemptions", "depth", "runs", "workers", "seed",
			"max-executions", "max-depth", "max-memory", "timeout", "out", "force", "shard", "json", "quiet", "emit-python", "emit-test", "report", "shrink", "corpus", "after-failure")},
}

// pickMode says which mode the given flags ask for, and refuses a flag
// that mode does not read.
func pickMode(o *options) (*mode, error) {
	var picked []*mode
	for i := range modes {
		m := &modes[i]
		switch {
		case m.flag == "backend":
			if o.stress.backend == backendGoroutines {
				picked = append(picked, m)
			}
		case m.flag != "" && o.set[m.flag]:
			picked = append(picked, m)
		}
	}
	var m *mode
	switch {
	case len(picked) == 0:
		m = &modes[len(modes)-1]
	case len(picked) > 1 && picked[1].flag != "backend" && picked[1].flag != "replay":
		return nil, usagef("%s and %s both given: each picks what explore does; give one", picked[0].picks, picked[1].picks)
	default:
		m = picked[0]
	}
	for _, f := range o.given {
		if f == m.flag || slices.Contains(m.reads, f) {
			continue
		}
		if m.flag == "" {
			var in []string
			for _, other := range modes {
				if f != other.flag && slices.Contains(other.reads, f) {
					in = append(in, other.picks)
				}
			}
			if len(in) == 0 {
				return nil, usagef("-%s is not read by a search", f)
			}
			return nil, usagef("-%s needs %s", f, strings.Join(in, " or "))
		}
		switch {
		case m.why != "":
			return nil, usagef("%s and -%s both given: %s", m.picks, f, m.why)
		case len(m.reads) == 0:
			return nil, usagef("%s and -%s both given: %s takes no other flag", m.picks, f, m.picks)
		}
		return nil, usagef("%s and -%s both given: %s does not read -%s (-h lists the flags each mode reads)", m.picks, f, m.picks, f)
	}
	if o.set["force"] && !o.set["out"] && !o.set["emit-python"] && !o.set["emit-test"] {
		return nil, usagef("-force needs -out, -emit-python or -emit-test (it lets them overwrite earlier results)")
	}
	return m, nil
}

// modeHelp is the table for -h, naming the flags fs defines.
func modeHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	for _, m := range modes {
		picks := m.picks
		if picks == "" {
			picks = "(no mode flag)"
		}
		fmt.Fprintf(&b, "  %-20s %s\n", picks, m.name)
		var reads []string
		for _, f := range m.reads {
			if fs.Lookup(f) != nil {
				reads = append(reads, "-"+f)
			}
		}
		if len(reads) > 0 {
			line := "reads " + strings.Join(reads, " ")
			fmt.Fprintf(&b, "  %-20s %s\n", "", wrap(line, 56, strings.Repeat(" ", 23)))
		}
	}
	return b.String()
}

// wrap breaks s into lines of at most width, indenting the later ones.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+1+len(w) > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// strategyFlags are the search's flags that only some strategies read:
// one given to another strategy is refused (one line, exit 2) rather than
// silently ignored.
var strategyFlags = []struct {
	flag       string
	strategies []string
}{
	{"preemptions", []string{check.StrategyBounded}},
	{"runs", []string{check.StrategyRandom, check.StrategyPCT}},
	{"seed", []string{check.StrategyRandom, check.StrategyPCT}},
	{"depth", []string{check.StrategyPCT}},
	{"workers", []string{check.StrategyAuto, check.StrategyStates, check.StrategyDFS, check.StrategyPOR}},
}

// checkStrategyFlags refuses a flag given that the chosen strategy does
// not read.
func checkStrategyFlags(o *options) error {
	for _, sf := range strategyFlags {
		if o.set[sf.flag] && !slices.Contains(sf.strategies, o.strategy) {
			return usagef("-strategy %s does not read -%s (read by -strategy %s)", o.strategy, sf.flag, strings.Join(sf.strategies, ", "))
		}
	}
	return nil
}

// strategyFlagsHelp says, for -h, which strategies read which flags.
func strategyFlagsHelp() string {
	var b strings.Builder
	for _, sf := range strategyFlags {
		fmt.Fprintf(&b, "  -%-12s only with -strategy %s\n", sf.flag, strings.Join(sf.strategies, ", "))
	}
	return b.String()
}
