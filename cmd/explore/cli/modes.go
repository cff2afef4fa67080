package cli

import (
	"slices"
	"strings"
)

// A mode is one thing explore does: the flag that picks it and every flag
// it reads. A flag given to a mode that does not read it is refused (one
// line, exit 2) rather than silently ignored: this table is the one place
// that says which flags go together, and -h prints it.
type mode struct {
	id    modeID
	name  string   // for -h
	picks string   // the flag that picks it, as typed ("" for the search)
	flag  string   // the flag name behind picks ("" for the search)
	reads []string // the flags it reads, besides flag: flagTable's (flags.go)
	why   string   // why another flag does not apply ("" for the default reason)
}

// modes lists the modes, the search (the default) last. Two of -list,
// -table, -version and -compare together are refused; -backend goroutines
// or -replay besides an earlier mode's flag is refused as a flag that mode
// does not read. Which flags each reads is flagTable's to say.
var modes = []mode{
	{id: modeList, name: "list the variants, strategies and violation kinds", picks: "-list", flag: "list"},
	{id: modeTable, name: "print the verdict table of the README", picks: "-table", flag: "table"},
	{id: modeVersion, name: "print the version", picks: "-version", flag: "version"},
	{id: modeCompare, name: "time every strategy and stress on the buggy variants", picks: "-compare", flag: "compare",
		why: "-compare runs every strategy and stress on its own cases (the buggy variants on -threads 2 and 64), each trial capped by -duration"},
	{id: modeSource, name: "check the swap function of a Python file as written", picks: "-source FILE[:NAME]", flag: "source"},
	{id: modeStress, name: "stress the protocol on real goroutines", picks: "-backend goroutines", flag: "backend"},
	{id: modeReplayRandom, name: "replay N random walks on real Python threads and tally them", picks: "-replay-random N", flag: "replay-random"},
	{id: modeReplay, name: "replay a trace.json or schedule.txt written by -out", picks: "-replay", flag: "replay",
		why: "the file names its protocol, atomicity, scenario and the violations searched for"},
	{id: modeSearch, name: "search the interleavings (the default)"},
}

// shapeFlags are the flags that build a scenario, which -scenario
// replaces.
var shapeFlags = []string{"threads", "blocks", "calls", "modules", "names", "nest", "syncthreads", "host-calls", "hosts", "branch", "atomics", "shared"}

func init() {
	for i := range modes {
		m := &modes[i]
		for _, f := range flagsOf(m.id) {
			if f != m.flag {
				m.reads = append(m.reads, f)
			}
		}
	}
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
