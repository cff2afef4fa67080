package model_test

// These tests check, against the python3 on the machine, the CPython facts the
// model relies on (which operations are atomic steps, where another thread may
// run, what a defaultdict read does, ...). The checks themselves live in
// ../testdata/cpython/atomicity.py, which prints one JSON object; see the
// comments there for how each fact is observed (sys.settrace opcode events,
// sys.setprofile C-call events, dis).

import (
	"encoding/json"
	"path/filepath"
	"swapcheck/internal/testenv"
	"testing"

	"github.com/stretchr/testify/require"
)

// expectedFacts are the names atomicity.py must report, one per fact the
// model claims. A fact missing from the output fails the test.
var expectedFacts = []string{
	"augassign_subscr_is_read_then_store",       // 1: d[k] += 1 is BINARY_SUBSCR .. STORE_SUBSCR, lost update
	"dict_ops_single_c_call",                    // 2: update/pop/del/store: one bytecode, one C call
	"pop_then_update_two_c_calls",               // 3: fn_globs.update(_swap_orig.pop(gid)) is two C calls
	"defaultdict_miss_c_factory_atomic",         // 4: defaultdict miss with C factory runs no Python code
	"defaultdict_missing_store_matches_release", // 4b: __missing__ keeps (gh-142495 fixed) or overwrites a value stored meanwhile
	"defaultdict_read_inserts",                  // 5: _swap_refcount[gid] == 0 inserts gid
	"comprehension_one_for_iter_per_item",       // 6: one FOR_ITER per item plus one
	"del_pop_missing_key_raise",                 // 7: del/pop of a missing key raise KeyError
	"exceptions_release_lock_and_run_finally",   // 8: with lock / @contextmanager finally on exceptions
	"dict_iteration_reassign_ok_insert_raises",  // 9: rebinding while iterating is fine, inserting raises
}

type pyFact struct {
	Name   string `json:"name"`
	Holds  bool   `json:"holds"`
	Detail string `json:"detail"`
}

type pyObservation struct {
	Name   string `json:"name"`
	Detail string `json:"detail"`
}

type atomicityReport struct {
	Python       string          `json:"python"`
	GILEnabled   bool            `json:"gil_enabled"`
	Facts        []pyFact        `json:"facts"`
	Observations []pyObservation `json:"observations"`
}

func TestCPythonAtomicity(t *testing.T) {
	script := filepath.Join("..", "testdata", "cpython", "atomicity.py")
	out := testenv.RunPython(t, script)

	var rep atomicityReport
	require.NoError(t, json.Unmarshal(out, &rep), "output of %s:\n%s", script, out)
	t.Logf("python: %s (GIL enabled: %v)", rep.Python, rep.GILEnabled)

	got := make(map[string]bool, len(rep.Facts))
	for _, f := range rep.Facts {
		got[f.Name] = true
	}
	for _, name := range expectedFacts {
		require.True(t, got[name], "fact %q missing from the output of %s", name, script)
	}

	for _, f := range rep.Facts {
		t.Run(f.Name, func(t *testing.T) {
			t.Log(f.Detail)
			require.True(t, f.Holds, "CPython fact %q does not hold on %s: %s", f.Name, rep.Python, f.Detail)
		})
	}
	// Informational: what real threads do on this interpreter (not asserted).
	for _, o := range rep.Observations {
		t.Logf("observation %s: %s", o.Name, o.Detail)
	}
}

func TestDisasmScript(t *testing.T) {
	script := filepath.Join("..", "testdata", "cpython", "disasm.py")
	src := filepath.Join("..", "testdata", "python", "merged.py")
	out := testenv.RunPython(t, script, src)

	var rep struct {
		Python string              `json:"python"`
		Lines  map[string][]string `json:"lines"`
	}
	require.NoError(t, json.Unmarshal(out, &rep), "output of %s:\n%s", script, out)

	// merged.py:33 `_swap_refcount[gid] += 1`: a read, then a separate store.
	l33 := rep.Lines["33"]
	require.NotEmpty(t, l33, "no opcodes for merged.py:33")
	read := indexOf(l33, "BINARY_SUBSCR")
	store := indexOf(l33, "STORE_SUBSCR")
	require.GreaterOrEqual(t, read, 0, "merged.py:33 %v: no BINARY_SUBSCR", l33)
	require.Greater(t, store, read, "merged.py:33 %v: STORE_SUBSCR not after BINARY_SUBSCR", l33)

	// merged.py:43 `fn_globs.update(_swap_orig.pop(gid))`: two calls. The line
	// is in a `finally`, which CPython compiles twice (normal and exception
	// path); every copy (each ends with the POP_TOP of update's result) must
	// have exactly two CALLs.
	l43 := rep.Lines["43"]
	require.NotEmpty(t, l43, "no opcodes for merged.py:43")
	var copies [][]string
	var cur []string
	for _, op := range l43 {
		cur = append(cur, op)
		if op == "POP_TOP" {
			copies = append(copies, cur)
			cur = nil
		}
	}
	require.NotEmpty(t, copies, "merged.py:43 %v: no statement end", l43)
	for _, c := range copies {
		require.Equal(t, 2, count(c, "CALL"), "merged.py:43 copy %v: want two CALLs", c)
	}
	require.GreaterOrEqual(t, count(l43, "CALL"), 2, "merged.py:43 %v", l43)
}

func indexOf(ops []string, op string) int {
	for i, o := range ops {
		if o == op {
			return i
		}
	}
	return -1
}

func count(ops []string, op string) int {
	n := 0
	for _, o := range ops {
		if o == op {
			n++
		}
	}
	return n
}
