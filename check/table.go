package check

import (
	"fmt"
	"io"
	"strings"

	"swapcheck/model"
	"swapcheck/sched"
)

// TableShapes are the scenarios of the verdict table, with the flags that
// make them.
var TableShapes = []struct {
	Flags string
	Shape model.Shape
}{
	{"-threads 2", model.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}},
	{"-threads 3", model.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}},
	{"-threads 2 -calls 2 -modules 2", model.Shape{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1}},
	{"-threads 2 -nest 1 -names 2", model.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 2, Nest: 1}},
	{"-threads 2 -calls 2 -syncthreads", model.Shape{Threads: 2, Blocks: 1, Calls: 2, Modules: 1, Names: 1, Syncthreads: true}},
}

// WriteVerdictTable runs the exhaustive search of every variant on every
// TableShapes scenario in every atomicity mode (one column each, in
// model.Atomicities order) and writes the verdicts as a Markdown table. Its
// output is deterministic.
func WriteVerdictTable(out io.Writer) error {
	modes := model.Atomicities()
	var b strings.Builder
	b.WriteString("| variant | scenario |")
	for _, a := range modes {
		fmt.Fprintf(&b, " %s |", a)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(modes)) + "\n")
	for _, p := range Protocols() {
		for _, ts := range TableShapes {
			sc, err := ts.Shape.Build()
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "| `%s` | `%s` |", p.Name, ts.Flags)
			for _, a := range modes {
				rep, err := Explore(Config{Protocol: p, Scenario: sc, Atomicity: a, Strategy: StrategyDFS})
				if err != nil {
					return err
				}
				fmt.Fprintf(&b, " %s |", verdictCell(rep))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func verdictCell(r *Report) string {
	res := r.Result
	switch res.Verdict {
	case sched.Violation:
		return fmt.Sprintf("**violation** `%s` (%d steps)", res.Failure.Kind, len(res.Schedule))
	case sched.Verified:
		return fmt.Sprintf("verified (%d states)", res.Stats.States)
	}
	return res.Verdict.String()
}
