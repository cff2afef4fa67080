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
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateSwitchPointsDoc = flag.Bool("switchpoints.doc.update", false,
	"rewrite the tables of docs/cpython-switch-points.md from testdata/cpython/switchpoints.golden.txt")

const (
	switchPointsDoc      = "../docs/cpython-switch-points.md"
	switchPointsDocBegin = "<!-- switchpoints-tables:begin -->\n"
	switchPointsDocEnd   = "<!-- switchpoints-tables:end -->\n"
)

// goldenInstr is one instruction line of the golden file.
type goldenInstr struct {
	offset     int
	opname     string
	line       string // "27", or "107 (k:128)" for launch.py
	static     string // "breaker", "precall", "call" or "-"
	cold, warm []string
	probed     bool // the line carries interrupt lists
}

type goldenFunc struct {
	header string // "name (file:line)"
	name   string
	instrs []goldenInstr
}

// parseSwitchPointsGolden reads the golden file's functions (the format
// goldenText writes).
func parseSwitchPointsGolden(t *testing.T, text string) []goldenFunc {
	t.Helper()
	var fns []goldenFunc
	for i, raw := range strings.Split(text, "\n") {
		if raw == "" || strings.HasPrefix(raw, "#") {
			continue
		}
		if h, ok := strings.CutPrefix(raw, "== "); ok {
			head, _, ok := strings.Cut(h, " scenarios:")
			require.True(t, ok, "golden line %d: %q", i+1, raw)
			name, _, _ := strings.Cut(head, " ")
			fns = append(fns, goldenFunc{header: head, name: name})
			continue
		}
		require.NotEmpty(t, fns, "golden line %d before any function", i+1)
		parts := strings.Split(raw, " | ")
		fields := strings.SplitN(strings.TrimSpace(parts[0]), ", ", 3)
		require.Len(t, fields, 3, "golden line %d: %q", i+1, raw)
		head := strings.Fields(fields[0])
		require.Len(t, head, 3, "golden line %d: %q", i+1, raw)
		off, err := strconv.Atoi(head[0])
		require.NoError(t, err, "golden line %d", i+1)
		ins := goldenInstr{
			offset: off,
			opname: head[1],
			line:   strings.TrimPrefix(fields[1], "line "),
			static: fields[2],
		}
		if len(parts) == 3 {
			ins.probed = true
			ins.cold = landingList(parts[1])
			ins.warm = ins.cold
			if w := strings.TrimSpace(parts[2]); w != "=" {
				ins.warm = landingList(w)
			}
		}
		fn := &fns[len(fns)-1]
		fn.instrs = append(fn.instrs, ins)
	}
	return fns
}

func landingList(s string) []string {
	s = strings.TrimSpace(s)
	if s == "-" || s == "" {
		return nil
	}
	return strings.Fields(s)
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
func renderSwitchPointTables(t *testing.T, fns []goldenFunc) string {
	t.Helper()
	var b strings.Builder
	for _, fn := range fns {
		// landed[offset][kind] = "cold", "warm" or "cold+warm".
		landed := map[int]map[string]map[string]bool{}
		outside := map[string]bool{}
		probed := false
		for _, ins := range fn.instrs {
			probed = probed || ins.probed
			for _, m := range []struct {
				mode string
				list []string
			}{{"cold", ins.cold}, {"warm", ins.warm}} {
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
		fmt.Fprintf(&b, "### `%s` %s\n\n", fn.name, strings.TrimPrefix(fn.header, fn.name+" "))
		cols := "| line | instruction | static | interrupt lands |\n|---|---|---|---|\n"
		if !probed {
			cols = "| line | instruction | static |\n|---|---|---|\n"
		}
		b.WriteString(cols)
		for _, ins := range fn.instrs {
			at := landed[ins.offset]
			// A PRECALL checks only once warm code specialized it into a
			// checking call; where nothing landed on it, its CALL's row says
			// all there is.
			if len(at) == 0 && (ins.static == "-" || ins.static == "precall") {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s@%d | %s |", ins.line, ins.opname, ins.offset, ins.static)
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
