package pyvm_test

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/pyvm"
)

// corpusCase is a case of testdata/opcodes.txt.
type corpusCase struct{ name, source string }

func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	b, err := os.ReadFile("testdata/opcodes.txt")
	require.NoError(t, err)
	parts := regexp.MustCompile(`(?m)^-- (.*)$`).Split(string(b), -1)
	names := regexp.MustCompile(`(?m)^-- (.*)$`).FindAllStringSubmatch(string(b), -1)
	var cs []corpusCase
	for i, n := range names {
		cs = append(cs, corpusCase{name: n[1], source: strings.TrimLeft(parts[i+1], "\n")})
	}
	return cs
}

// notRun are opcodes a version supports that no corpus case runs, and why.
var notRun = map[string]string{
	"END_FOR": "FOR_ITER's exit jumps over it, as CPython's generic FOR_ITER does; only CPython's specialized FOR_ITER_GEN returns to it",
}

// TestOpcodes runs every case of the corpus in CPython and in the Go
// interpreter, for every version, and compares what they give; then it
// checks that the corpus ran every opcode the version supports.
func TestOpcodes(t *testing.T) {
	cases := readCorpus(t)
	require.NotEmpty(t, cases)
	for _, v := range pyvm.Versions {
		t.Run(v.String(), func(t *testing.T) {
			h := harnessFor(t, v)
			ran := map[string]int{}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					cs := Case{File: "<" + c.name + ">", Source: c.source, Call: "f"}
					py := h.run(t, cs)
					require.Empty(t, py.Syntax, "the case does not compile on %s", v)
					gr, err := runGo(v, py, cs, pyvm.Options{})
					require.NoError(t, err)
					for op, n := range gr.Ops {
						ran[op] += n
					}
					if d := diff(py, gr); d != "" {
						t.Errorf("python %s differs:\n%s\nsource:\n%s", v, d, c.source)
					}
				})
			}
			var missing []string
			for _, op := range pyvm.SupportedOpcodes(v) {
				if ran[op.String()] == 0 && notRun[op.String()] == "" {
					missing = append(missing, op.String())
				}
			}
			sort.Strings(missing)
			require.Empty(t, missing, "opcodes python %s supports that no case of testdata/opcodes.txt runs", v)
		})
	}
}

// TestBrokenOpcodesAreCaught: the corpus notices a wrong opcode. With
// each deliberately broken function of BrokenOpcodes in place, some case
// of testdata/opcodes.txt differs from CPython (the first version found).
func TestBrokenOpcodesAreCaught(t *testing.T) {
	cases := readCorpus(t)
	var v pyvm.Version
	var h *harness
	for _, vv := range pyvm.Versions {
		if interpreterFound(vv) {
			v, h = vv, harnessFor(t, vv)
			break
		}
	}
	if h == nil {
		t.Skip("no CPython found")
	}
	names := make([]string, 0, len(pyvm.BrokenOpcodes))
	for name := range pyvm.BrokenOpcodes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			restore := pyvm.BreakOpcodeForTest(name)
			defer restore()
			caught := 0
			for _, c := range cases {
				cs := Case{File: "<" + c.name + ">", Source: c.source, Call: "f"}
				py := h.run(t, cs)
				gr, err := runGo(v, py, cs, pyvm.Options{})
				if err != nil || diff(py, gr) != "" {
					caught++
				}
			}
			require.Positive(t, caught, "python %s: with %q no case of the corpus differs from CPython", v, name)
			t.Logf("python %s: %d of %d cases differ", v, caught, len(cases))
		})
	}
}
