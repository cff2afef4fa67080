package variants_test

// Every instruction of every listing cites a line of its Python source and
// the bytecode(s) it stands for; this test checks both against CPython's
// own disassembly of that source (../testdata/cpython/disasm.py).

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"swapcheck/internal/testenv"
	"testing"

	"github.com/stretchr/testify/require"
)

// listingPython is the CPython whose opcode names the listings use.
const listingPython = "3.11"

var opname = regexp.MustCompile(`^[A-Z_]+$`)

// opcodes are the opcode names an Instr.Bytecode mentions: its upper-case
// words, leaving out the comments in (possibly nested) parentheses, such
// as "(defaultdict miss: threading.Lock())".
func opcodes(bytecode string) []string {
	var b strings.Builder
	depth := 0
	for _, r := range bytecode {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	var out []string
	for _, w := range strings.FieldsFunc(b.String(), func(r rune) bool {
		return r == ' ' || r == ';' || r == '/' || r == ','
	}) {
		if opname.MatchString(w) {
			out = append(out, w)
		}
	}
	return out
}

func TestOpcodes(t *testing.T) {
	tests := map[string][]string{
		"CALL (dict.update)": {"CALL"},
		"BINARY_SUBSCR (defaultdict miss: threading.Lock()); STORE_FAST lock": {"BINARY_SUBSCR", "STORE_FAST"},
		"CALL (lock.__exit__: release) / WITH_EXCEPT_START; RERAISE":          {"CALL", "WITH_EXCEPT_START", "RERAISE"},
		"BINARY_OP +=; SWAP; SWAP; STORE_SUBSCR":                              {"BINARY_OP", "SWAP", "SWAP", "STORE_SUBSCR"},
		"IMPORT_NAME numba; IMPORT_FROM cuda; STORE_DEREF cuda":               {"IMPORT_NAME", "IMPORT_FROM", "STORE_DEREF"},
		"BEFORE_WITH (lock.__enter__: acquire)":                               {"BEFORE_WITH"},
		"BINARY_SUBSCR; COMPARE_OP ==; POP_JUMP_FORWARD_IF_FALSE (NOT_AN_OP)": {"BINARY_SUBSCR", "COMPARE_OP", "POP_JUMP_FORWARD_IF_FALSE"},
	}
	for in, want := range tests {
		require.Equal(t, want, opcodes(in), in)
	}
}

func TestListingsMatchBytecode(t *testing.T) {
	script := filepath.Join("..", "testdata", "cpython", "disasm.py")
	for _, p := range protocols {
		t.Run(p.Name, func(t *testing.T) {
			src := filepath.Join("..", "testdata", "python", p.Source)
			out := testenv.RunPython(t, script, src)
			var dis struct {
				Python string              `json:"python"`
				Lines  map[string][]string `json:"lines"`
			}
			require.NoError(t, json.Unmarshal(out, &dis), "output of %s %s:\n%s", script, src, out)
			// Line numbers hold on any CPython; opcode names are 3.11's.
			checkOps := strings.HasPrefix(dis.Python, listingPython+".")
			if !checkOps {
				t.Logf("python3 is %s: the listings name CPython %s opcodes, so only their lines are checked",
					strings.Fields(dis.Python)[0], listingPython)
			}
			var bad []string
			checked := 0
			for i, in := range p.Code {
				ops, ok := dis.Lines[strconv.Itoa(in.Line)]
				if !ok {
					bad = append(bad, fmt.Sprintf("instruction %d (%q): %s:%d has no bytecode", i, in.Text, p.Source, in.Line))
					continue
				}
				if !checkOps {
					continue
				}
				for _, op := range opcodes(in.Bytecode) {
					checked++
					if !slices.Contains(ops, op) {
						bad = append(bad, fmt.Sprintf("instruction %d (%q): %s is not on %s:%d, whose opcodes are %v",
							i, in.Text, op, p.Source, in.Line, ops))
					}
				}
			}
			require.Empty(t, bad, "protocol %s against %s", p.Name, src)
			t.Logf("%d instructions, %d opcode claims checked", len(p.Code), checked)
		})
	}
}
