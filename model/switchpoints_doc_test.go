package model_test

// The per-function tables of docs/cpython-switch-points.md are rendered
// from testdata/cpython/switchpoints.golden.txt, so that they cannot drift
// from the observations when a Python file or the golden changes. This
// test needs no python3: it reads the golden file and the doc.
// go test ./model -run SwitchPointsDoc -switchpoints.doc.update rewrites
// the doc between its markers.

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/switchgolden"
)

var updateSwitchPointsDoc = flag.Bool("switchpoints.doc.update", false,
	"rewrite the tables of docs/cpython-switch-points.md from testdata/cpython/switchpoints.golden.txt")

const (
	switchPointsDoc      = "../docs/cpython-switch-points.md"
	switchPointsDocBegin = "<!-- switchpoints-tables:begin -->\n"
	switchPointsDocEnd   = "<!-- switchpoints-tables:end -->\n"
)

// parseSwitchPointsGolden reads the golden file's functions.
func parseSwitchPointsGolden(t *testing.T, text string) []switchgolden.Func {
	t.Helper()
	fns, err := switchgolden.Parse(text)
	require.NoError(t, err)
	return fns
}

// outsideText names, for a reader, where an interrupt set after a
// function's last check was raised ("in___enter__:CALL" as the script
// writes it).
func outsideText(where string) string {
	fn, op, _ := strings.Cut(strings.TrimPrefix(where, "in_"), ":")
	switch fn {
	case "interrupt_trials":
		return "after the scenario returned (in the fixture)"
	case "run":
		return "in the scenario's `with` statement (run) at " + op
	case "":
		return "outside"
	}
	return fmt.Sprintf("in %s at %s", fn, op)
}

// renderSwitchPointTables renders one table per function: every
// instruction whose static class is breaker or call, and every one where
// an interrupt landed.
func renderSwitchPointTables(t *testing.T, fns []switchgolden.Func) string {
	t.Helper()
	var b strings.Builder
	for _, fn := range fns {
		// landed[offset][kind] = "cold", "warm" or "cold+warm".
		landed := map[int]map[string]map[string]bool{}
		outside := map[string]bool{}
		probed := false
		for _, ins := range fn.Instrs {
			probed = probed || ins.Probed
			for _, m := range []struct {
				mode string
				list []string
			}{{"cold", ins.Cold}, {"warm", ins.Warm}} {
				for _, s := range m.list {
					l := parseLanding(t, s)
					if l.Offset < 0 {
						outside[outsideText(l.Kind)] = true
						continue
					}
					if landed[l.Offset] == nil {
						landed[l.Offset] = map[string]map[string]bool{}
					}
					if landed[l.Offset][l.Kind] == nil {
						landed[l.Offset][l.Kind] = map[string]bool{}
					}
					landed[l.Offset][l.Kind][m.mode] = true
				}
			}
		}
		fmt.Fprintf(&b, "### `%s` %s\n\n", fn.Name, strings.TrimPrefix(fn.Header, fn.Name+" "))
		cols := "| line | instruction | static | interrupt lands |\n|---|---|---|---|\n"
		if !probed {
			cols = "| line | instruction | static |\n|---|---|---|\n"
		}
		b.WriteString(cols)
		for _, ins := range fn.Instrs {
			at := landed[ins.Offset]
			// A PRECALL checks only once warm code specialized it into a
			// checking call; where nothing landed on it, its CALL's row says
			// all there is.
			if len(at) == 0 && (ins.Static == "-" || ins.Static == "precall") {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s@%d | %s |", ins.Line, ins.Opname, ins.Offset, ins.Static)
			if probed {
				var cells []string
				kinds := make([]string, 0, len(at))
				for k := range at {
					kinds = append(kinds, k)
				}
				sort.Strings(kinds)
				for _, k := range kinds {
					var modes []string
					for _, m := range []string{"cold", "warm"} {
						if at[k][m] {
							modes = append(modes, m)
						}
					}
					cells = append(cells, fmt.Sprintf("%s (%s)", k, strings.Join(modes, "+")))
				}
				if len(cells) == 0 {
					cells = []string{"-"}
				}
				fmt.Fprintf(&b, " %s |", strings.Join(cells, ", "))
			}
			b.WriteString("\n")
		}
		if len(outside) > 0 {
			var where []string
			for w := range outside {
				where = append(where, w)
			}
			sort.Strings(where)
			fmt.Fprintf(&b, "\nInterrupts set after the last check land outside: %s.\n", strings.Join(where, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestSwitchPointsDocTables: the doc's tables are the rendering of the
// golden file.
func TestSwitchPointsDocTables(t *testing.T) {
	var golden []byte
	if *updateSwitchPoints {
		// the golden is being rewritten in this run: render what it will say
		golden = []byte(goldenText(switchPoints(t)))
	} else {
		var err error
		golden, err = os.ReadFile(switchPointsGolden)
		require.NoError(t, err)
	}
	fns := parseSwitchPointsGolden(t, string(golden))
	require.NotEmpty(t, fns)
	want := renderSwitchPointTables(t, fns)

	doc, err := os.ReadFile(switchPointsDoc)
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(doc), switchPointsDocBegin)
	require.True(t, ok, "%s lacks the marker %q", switchPointsDoc, switchPointsDocBegin)
	got, after, ok := strings.Cut(rest, switchPointsDocEnd)
	require.True(t, ok, "%s lacks the marker %q", switchPointsDoc, switchPointsDocEnd)
	if *updateSwitchPointsDoc || *updateSwitchPoints {
		out := before + switchPointsDocBegin + want + switchPointsDocEnd + after
		require.NoError(t, os.WriteFile(switchPointsDoc, []byte(out), 0o644))
		return
	}
	require.Equal(t, want, got,
		"the tables of %s differ from %s; run: go test ./model -run SwitchPointsDocTables -switchpoints.doc.update",
		switchPointsDoc, switchPointsGolden)
}
