package cli

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"swapcheck/check"
	"swapcheck/scenario"
)

// flagWords is one flag given, as the replay command spells it.
type flagWords struct {
	name  string
	words []string
}

// isBool reports whether f is a boolean flag.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// shrunkRepro is the command that prints the shrunk counterexample again:
// with -out, the replay of its schedule.txt (repro as it is); when flags
// built the scenario and the configured search on the shrunk one finds
// the same kind, the command with the shrunk scenario's flags; else the
// command as given, which shrinks to the same counterexample again
// (shrunkLine says why).
func shrunkRepro(o *options, rep *check.Report, repro string) string {
	s := rep.Shrink
	if s == nil || len(s.Changes) == 0 || o.out != "" || !s.FlagsReproduce {
		return repro
	}
	return "go run ./cmd/explore " + strings.Join(shapeArgs(o.flagArgs, *s.Shape), " ")
}

// shapeArgs are the flags given with the shape flags replaced by sh's,
// each one that differs from the default, in the order the flags are
// visited (by name).
func shapeArgs(given []flagWords, sh scenario.Shape) []string {
	var kept []flagWords
	for _, f := range given {
		if !slices.Contains(shapeFlags, f.name) && f.name != "faults" && f.name != "max-faults" && f.name != "fix" {
			kept = append(kept, f)
		}
	}
	def := scenario.DefaultShape
	for _, d := range []struct {
		name     string
		got, def int
	}{
		{"threads", sh.Threads, def.Threads}, {"blocks", sh.Blocks, def.Blocks}, {"calls", sh.Calls, def.Calls},
		{"modules", sh.Modules, def.Modules}, {"names", sh.Names, def.Names}, {"nest", sh.Nest, def.Nest},
		{"hosts", max(sh.Hosts, 1), max(def.Hosts, 1)},
	} {
		if d.got != d.def {
			kept = append(kept, flagWords{d.name, []string{"-" + d.name, strconv.Itoa(d.got)}})
		}
	}
	if sh.Syncthreads {
		kept = append(kept, flagWords{"syncthreads", []string{"-syncthreads"}})
	}
	if sh.HostCalls {
		kept = append(kept, flagWords{"host-calls", []string{"-host-calls"}})
	}
	if sh.Branch {
		kept = append(kept, flagWords{"branch", []string{"-branch"}})
	}
	if len(sh.Atomics) > 0 {
		var ops []string
		for _, op := range sh.Atomics {
			ops = append(ops, op.String())
		}
		kept = append(kept, flagWords{"atomics", []string{"-atomics", strings.Join(ops, ",")}})
	}
	if sh.Shared {
		kept = append(kept, flagWords{"shared", []string{"-shared"}})
	}
	if sh.Fixes != 0 {
		kept = append(kept, flagWords{"fix", []string{"-fix", sh.Fixes.String()}})
	}
	if sh.Faults != 0 {
		kept = append(kept, flagWords{"faults", []string{"-faults", sh.Faults.String()}})
		if sh.MaxFaults > 1 {
			kept = append(kept, flagWords{"max-faults", []string{"-max-faults", strconv.Itoa(sh.MaxFaults)}})
		}
	}
	slices.SortStableFunc(kept, func(a, b flagWords) int { return strings.Compare(a.name, b.name) })
	var args []string
	for _, f := range kept {
		args = append(args, f.words...)
	}
	return args
}

// shrunkLine says what shrinking made smaller, for stderr ("" when it
// did not run), and, when the replay command cannot name the shrunk
// scenario by flags, how to get it.
func shrunkLine(o *options, rep *check.Report) string {
	s := rep.Shrink
	if s == nil {
		return ""
	}
	line := fmt.Sprintf("shrunk: %s (%s, %s, %.1f ms)", s, searches(s.Searches), check.Count(s.Steps, "step"), float64(s.Elapsed.Microseconds())/1000)
	if len(s.Changes) == 0 || o.out != "" {
		return line
	}
	switch {
	case s.Shape == nil:
		line += "; the shrunk scenario has no flags: -out DIR writes it, with the schedule, to DIR/schedule.txt"
	case !s.FlagsReproduce:
		line += "; the search the flags ask for, run on the shrunk scenario, does not find this kind first, so the replay command is the one given: -out DIR writes the shrunk scenario to DIR/schedule.txt"
	}
	return line
}

// searches is "1 search", "2 searches".
func searches(n int) string {
	if n == 1 {
		return "1 search"
	}
	return fmt.Sprintf("%d searches", n)
}
