package check

import (
	"fmt"
	"io"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// TableShapes are the scenarios of the verdict table, with the flags that
// make them. A row with faults (Shape.Faults) or several hosts shows what
// each variant does in that world; a variant registered as correct need
// not survive it (TestVerdictTableMatchesExpected): no swap protocol at
// this level survives every landing of an interrupt, and with two hosts
// FakeCUDAKernel.__call__'s unlocked test of _kernel_context (kernel.py)
// fails whatever the swap does; proposed's dispatcher replaces that test.
var TableShapes = []struct {
	Flags string
	Shape scenario.Shape
}{
	{"-threads 2", scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}},
	{"-threads 3", scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1}},
	{"-threads 2 -calls 2 -modules 2", scenario.Shape{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1}},
	{"-threads 2 -nest 1 -names 2", scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 2, Nest: 1}},
	{"-threads 2 -calls 2 -syncthreads", scenario.Shape{Threads: 2, Blocks: 1, Calls: 2, Modules: 1, Names: 1, Syncthreads: true}},
	{"-threads 2 -host-calls", scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true}},
	{"-threads 3 -branch", scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Branch: true}},
	{"-threads 2 -faults interrupt", scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultInterrupt)}},
	{"-threads 2 -faults raise", scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Faults: scenario.Faults(0).With(scenario.FaultRaise)}},
	{"-threads 2 -hosts 2", scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2}},
}

// TableAtomicities are the verdict table's columns: every atomicity mode,
// in model.Atomicities order.
var TableAtomicities = model.Atomicities()

// VerdictRow is one row of the verdict table: a registered variant on one
// TableShapes scenario, searched exhaustively (dfs) under each of
// TableAtomicities.
type VerdictRow struct {
	Variant variants.Variant
	Flags   string
	// NeedNotSurvive: the row's world has faults or several hosts, which a
	// correct swap protocol need not survive (see TableShapes).
	NeedNotSurvive bool
	Results        []sched.Result // one per TableAtomicities
}

// VerdictTable runs the exhaustive search of every registered variant on
// every TableShapes scenario in every atomicity mode, in registry order.
func VerdictTable() ([]VerdictRow, error) {
	var rows []VerdictRow
	for _, v := range variants.All() {
		for _, ts := range TableShapes {
			sc, err := ts.Shape.Build()
			if err != nil {
				return nil, err
			}
			row := VerdictRow{Variant: v, Flags: ts.Flags, NeedNotSurvive: sc.Faults != 0 || sc.NumHosts() > 1, Results: make([]sched.Result, len(TableAtomicities))}
			for i, a := range TableAtomicities {
				rep, err := Explore(Config{Protocol: v.Protocol, Scenario: sc, Atomicity: a, Strategy: StrategyDFS})
				if err != nil {
					return nil, err
				}
				row.Results[i] = rep.Result
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// WriteVerdictTable writes VerdictTable as a Markdown table. Its output is
// deterministic.
func WriteVerdictTable(out io.Writer) error {
	rows, err := VerdictTable()
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("| variant | scenario |")
	for _, a := range TableAtomicities {
		fmt.Fprintf(&b, " %s |", a)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(TableAtomicities)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | `%s` |", r.Variant.Protocol.Name, r.Flags)
		for _, res := range r.Results {
			fmt.Fprintf(&b, " %s |", verdictCell(res))
		}
		b.WriteString("\n")
	}
	_, err = io.WriteString(out, b.String())
	return err
}

func verdictCell(res sched.Result) string {
	switch res.Verdict {
	case sched.Violation:
		return fmt.Sprintf("**violation** `%s` (%d steps)", res.Failure.Kind, len(res.Schedule))
	case sched.Verified:
		return fmt.Sprintf("verified (%d states)", res.Stats.States)
	}
	return res.Verdict.String()
}
